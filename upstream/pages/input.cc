// upstream/pages/input.cc: see input.h.
#include "upstream/pages/input.h"

namespace pages {
namespace {

uint8_t At(const uint8_t* data, size_t size, size_t i) { return i < size ? data[i] : 0; }

}  // namespace

std::vector<Case> Decode(const uint8_t* data, size_t size) {
  Case c;
  if ((At(data, size, 0) & 1) != 0) {
    c.helper = Helper::kFlush;
    c.flush_idx = At(data, size, 1) % 65;
    c.flush_pages = At(data, size, 2) % (65 - c.flush_idx);
    c.flush_sets = At(data, size, 3) % 57;
    return {c};
  }
  const size_t n = At(data, size, 1) % 65;
  uint64_t addr = kFirstPage;
  for (size_t i = 0; i < n; i++) {
    if (i > 0) {
      const uint8_t b = At(data, size, 1 + i);
      const int64_t step = b < 0x80 ? 1 : static_cast<int64_t>(b & 0x7F) - 64;
      addr += static_cast<uint64_t>(step * static_cast<int64_t>(kPageBytes));
    }
    c.pages.push_back(addr);
  }
  Case other = c;
  other.helper = Helper::k8k;
  return {c, other};
}

bool Encode(const Case& c, std::vector<uint8_t>* out, std::string* why) {
  out->clear();
  if (c.helper == Helper::kFlush) {
    if (c.flush_idx > 64 || c.flush_idx + c.flush_pages > 64 || c.flush_sets > 56) {
      *why = "flush arguments outside idx + pages <= 64, sets <= 56";
      return false;
    }
    *out = {1, static_cast<uint8_t>(c.flush_idx), static_cast<uint8_t>(c.flush_pages),
            static_cast<uint8_t>(c.flush_sets)};
    return true;
  }
  if (c.pages.size() > 64) {
    *why = "more than 64 pages";
    return false;
  }
  if (!c.pages.empty() && c.pages[0] != kFirstPage) {
    *why = "page 0 is not at kFirstPage";
    return false;
  }
  out->push_back(0);
  out->push_back(static_cast<uint8_t>(c.pages.size()));
  for (size_t i = 1; i < c.pages.size(); i++) {
    const int64_t diff = static_cast<int64_t>(c.pages[i] - c.pages[i - 1]);
    if (diff % static_cast<int64_t>(kPageBytes) != 0) {
      *why = "a page address not a multiple of 4096 away from the previous one";
      return false;
    }
    const int64_t step = diff / static_cast<int64_t>(kPageBytes);
    if (step == 1) {
      out->push_back(0);
    } else if (step >= -64 && step <= 63) {
      out->push_back(static_cast<uint8_t>(0x80 | (step + 64)));
    } else {
      *why = "a step of more than 64 pages";
      return false;
    }
  }
  return true;
}

std::vector<uint64_t> Runs(const std::vector<std::pair<int, int>>& runs) {
  std::vector<uint64_t> v;
  for (const auto& [start, len] : runs) {
    for (int j = 0; j < len; j++) {
      v.push_back(kFirstPage + static_cast<uint64_t>(static_cast<int64_t>(start + j) *
                                                     static_cast<int64_t>(kPageBytes)));
    }
  }
  return v;
}

}  // namespace pages
