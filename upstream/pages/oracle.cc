// upstream/pages/oracle.cc: see oracle.h. Written from the rules as
// docs/upstream.md states them; kept deliberately different in shape from
// the kernel's loops (runs are found first, then cut), so that a shared
// slip is unlikely.
#include "upstream/pages/oracle.h"

#include <cstdio>

namespace pages {

std::string Describe(const std::vector<Set>& sets) {
  std::string s;
  for (const Set& set : sets) {
    if (!s.empty()) s += ' ';
    if (set.filler()) {
      s += 'F';
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "{%u,%u}", set.idx, set.count);
      s += buf;
    }
  }
  return s.empty() ? "(none)" : s;
}

uint32_t FirstPiece(uint32_t remaining) {
  if (remaining > kMaxPiecePages) return kMaxPiecePages;
  uint32_t p = 1;
  while (p * 2 <= remaining) p *= 2;
  return p;
}

namespace {

// Cuts [first, first + len) into pieces, in address order.
void Cut(std::vector<Set>* out, uint32_t first, uint32_t len) {
  while (len > 0) {
    const uint32_t piece = FirstPiece(len);
    out->push_back(Set{first, piece});
    first += piece;
    len -= piece;
  }
}

void PadToEven(std::vector<Set>* out) {
  if (out->size() % 2 == 1) out->push_back(Set{});
}

bool Continues(const std::vector<uint64_t>& v, size_t j) {
  return v[j] == v[j - 1] + kPageBytes;
}

}  // namespace

void Flush(std::vector<Set>* out, uint32_t* idx, uint32_t pages) {
  Cut(out, *idx, pages);
  *idx += pages;
  PadToEven(out);
}

std::vector<Set> Blocks4k(const std::vector<uint64_t>& v) {
  std::vector<Set> out;
  size_t start = 0;
  for (size_t j = 1; j <= v.size(); j++) {
    if (j == v.size() || !Continues(v, j)) {
      Cut(&out, static_cast<uint32_t>(start), static_cast<uint32_t>(j - start));
      start = j;
    }
  }
  PadToEven(&out);
  return out;
}

// The rule per pair (pages 2k and 2k+1):
// - a pair whose second page does not continue the first, or a last page
//   without a partner, ends whatever run was pending (flushed, padded to an
//   even count), then gives one single-page set per page, the missing
//   partner replaced by a filler;
// - a pair that is contiguous inside joins the pending run if its first page
//   continues the run's last page; otherwise the pending run is flushed and
//   the pair starts a new one;
// - at the end the pending run is flushed.
std::vector<Set> Blocks8k(const std::vector<uint64_t>& v) {
  std::vector<Set> out;
  uint32_t run_start = 0;
  uint32_t run_len = 0;
  const size_t n = v.size();
  for (size_t i = 0; i < n; i += 2) {
    const bool whole_pair = i + 1 < n && Continues(v, i + 1);
    if (!whole_pair) {
      uint32_t idx = run_start;
      Flush(&out, &idx, run_len);
      out.push_back(Set{static_cast<uint32_t>(i), 1});
      out.push_back(i + 1 < n ? Set{static_cast<uint32_t>(i + 1), 1} : Set{});
      run_start = static_cast<uint32_t>(i + 2);
      run_len = 0;
      continue;
    }
    if (run_len > 0 && !Continues(v, i)) {
      uint32_t idx = run_start;
      Flush(&out, &idx, run_len);
      run_start = static_cast<uint32_t>(i);
      run_len = 0;
    }
    run_len += 2;
  }
  uint32_t idx = run_start;
  Flush(&out, &idx, run_len);
  return out;
}

}  // namespace pages
