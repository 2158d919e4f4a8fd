// core/invariants_rcvarray.cc: G1-G7 (docs/kernel-invariants.md, "TID
// groups") over a context's RcvArray groups, its entries and, at rest, the
// live segments of its QPs' requests (core/exp_rcv.h).
#include <bitset>
#include <string>

#include "absl/container/inlined_vector.h"
#include "common/strings.h"
#include "core/exp_rcv.h"
#include "core/invariants_internal.h"

namespace flowcheck {
namespace internal {
namespace {

enum ListId { kFree, kUsed, kFull, kNumLists };
// Groups held without allocating: the model's 8 (kModelExpectedCount
// entries, kModelRcvGroupSize per group), with room for a larger RcvArray.
constexpr size_t kInlineGroups = 32;
constexpr const char* kListNames[] = {"tid_group_list", "tid_used_list", "tid_full_list"};

// The list a group belongs on by its used count (G1).
ListId ListFor(const tid_group& g) {
  return g.used == 0 ? kFree : g.used == g.size ? kFull : kUsed;
}

// The RcvArray entries (device-wide) node `n` of a flow covers: the group's
// entries not in n.map, the first n.cnt of them (kern_program_rcv_group).
template <typename F>
void ForEachEntry(const kern_tid_node& n, F f) {
  int cnt = 0;
  for (int i = 0; i < n.grp->size && cnt < n.cnt; ++i) {
    if (n.map & (1u << i)) continue;
    f(n.grp->base + static_cast<u32>(i));
    ++cnt;
  }
}

// G6: a live segment's programming consumed exactly its plan
// (kern_program_rcvarray over kern_alloc_tids' nodes): the page helpers pad
// a segment to whole pairs, kern_alloc_tids plans whole pairs, and each pair
// yields one TID entry whose LEN is the pair's pages.
void CheckPlanConsumed(const tid_rdma_flow& flow, u32 qpn, const char* role, u16 slot,
                       Collector* c) {
  u32 planned = 0, odd_nodes = 0, pages = 0, len = 0;
  for (int n = 0; n < flow.tnode_cnt; ++n) {
    planned += flow.tnode[n].cnt;
    odd_nodes += flow.tnode[n].cnt & 1;
  }
  for (int k = 0; k < flow.npagesets; ++k) pages += flow.pagesets[k].count;
  for (int t = 0; t < flow.tidcnt; ++t) {
    len += (flow.tid_entry[t] >> EXP_TID_TIDLEN_SHIFT) & EXP_TID_TIDLEN_MASK;
  }
  std::string why;
  if (flow.npagesets % 2 != 0 || odd_nodes != 0) {
    why =
        flowcheck::StrFormat("npagesets %u, %u node(s) of an odd count", flow.npagesets, odd_nodes);
  } else if (planned != flow.npagesets) {
    why = flowcheck::StrFormat("its %u node(s) plan %u entries for %u pagesets", flow.tnode_cnt,
                               planned, flow.npagesets);
  } else if (flow.tidcnt != flow.npagesets / 2) {
    why = flowcheck::StrFormat("%u TID entries for %u pagesets (one per pair)", flow.tidcnt,
                               flow.npagesets);
  } else if (len != pages) {
    why = flowcheck::StrFormat("its TID entries' lengths sum to %u pages, its pagesets hold %u",
                               len, pages);
  }
  if (!why.empty()) {
    c->Add(Invariant::kG6, Severity::kViolation, "qp %u's live %s segment (slot %u): %s", qpn, role,
           slot, why.c_str());
  }
}

}  // namespace

void CheckRcvArray(const hfi1_ctxtdata& rcd, absl::Span<rvt_qp* const> qps,
                   const CheckOptions& options, Collector* c) {
  const int ngroups = rcd.rcv_array_groups;
  if (ngroups == 0 || rcd.groups == nullptr) return;
  const tid_group* first = &rcd.groups[0];
  // Which list(s) each group was found on, by walking each list (bounded:
  // a corrupted list may loop). No allocation for the model's RcvArray: this
  // runs after every op, and under TSan each allocation records its stack.
  absl::InlinedVector<int, kInlineGroups> on(ngroups, -1), times(ngroups, 0);
  const exp_tid_set* sets[kNumLists] = {&rcd.tid_group_list, &rcd.tid_used_list,
                                        &rcd.tid_full_list};
  for (int l = 0; l < kNumLists; ++l) {
    u32 length = 0;
    const list_head* head = &sets[l]->list;
    for (const list_head* n = head->next; n != head && length <= static_cast<u32>(ngroups);
         n = n->next, ++length) {
      const tid_group* g = list_entry(const_cast<list_head*>(n), tid_group, list);
      const long k = g - first;
      if (k < 0 || k >= ngroups) {
        c->Add(Invariant::kG3, Severity::kViolation, "%s holds a node that is no group of ctxt %u",
               kListNames[l], rcd.ctxt);
        break;
      }
      on[k] = l;
      times[k]++;
    }
    if (length != sets[l]->count) {
      c->Add(Invariant::kG3, Severity::kViolation, "%s: count %u but %u group(s) on it",
             kListNames[l], sets[l]->count, length);
    }
  }
  const u32 total = rcd.tid_group_list.count + rcd.tid_used_list.count + rcd.tid_full_list.count;
  if (total != static_cast<u32>(ngroups)) {
    c->Add(Invariant::kG3, Severity::kViolation,
           "the list counts sum to %u, not the %d groups (rcv_array_groups)", total, ngroups);
  }
  u32 used_sum = 0;
  for (int k = 0; k < ngroups; ++k) {
    const tid_group& g = rcd.groups[k];
    used_sum += g.used;
    if (times[k] != 1) {
      c->Add(Invariant::kG1, Severity::kViolation, "group %d (base %u, used %u) is on %d lists",
             k, g.base, g.used, times[k]);
    } else if (on[k] != ListFor(g)) {
      c->Add(Invariant::kG1, Severity::kViolation, "group %d (base %u) has used %u but is on %s",
             k, g.base, g.used, kListNames[on[k]]);
    }
    if (static_cast<int>(std::bitset<8>(g.map).count()) != g.used || g.used > g.size) {
      c->Add(Invariant::kG2, Severity::kViolation, "group %d (base %u): used %u, map 0x%02x", k,
             g.base, g.used, g.map);
    }
    if (((g.map & 0x55) << 1) != (g.map & 0xAA)) {
      c->Add(Invariant::kG4, Severity::kViolation,
             "group %d (base %u): map 0x%02x is not whole aligned pairs", k, g.base, g.map);
    }
    // G7: a valid entry is in use (a filler is in use but invalid).
    for (int i = 0; i < g.size; ++i) {
      const u32 e = g.base + static_cast<u32>(i) - rcd.expected_base;
      if (rcd.rcv_array[e].load(std::memory_order_relaxed) != 0 && !(g.map & (1u << i))) {
        c->Add(Invariant::kG7, Severity::kViolation,
               "RcvArray entry %u is programmed but free in group %d (map 0x%02x)", g.base + i, k,
               g.map);
      }
    }
  }
  if (const u64 twice = rcd.rcvarray_audit.double_programs.load(std::memory_order_relaxed)) {
    c->Add(Invariant::kG7, Severity::kViolation,
           "%llu RcvArray programming(s) of an entry already programmed (last: entry %u)",
           static_cast<unsigned long long>(twice),
           rcd.rcvarray_audit.last_double_programmed.load(std::memory_order_relaxed));
  }
  // At rest the requests (s_lock) may be read: their live segments hold
  // exactly the entries in use, none twice, each its plan (G5, G6, G7).
  if (!options.quiescent) return;
  u32 live_cnt = 0;
  absl::InlinedVector<int, kModelExpectedCount> owner(rcd.expected_count, -1);
  const auto add_live = [&](const tid_rdma_request& req, const rvt_qp* qp, const char* role) {
    const u32 qpn = qp->qp_num;
    const tid_flow_state& fs = qp->priv->flow_state;
    if (req.flows == nullptr) return;  // freed: a completed READ's
    live_cnt += tid_request_held_entries(req);
    for (u16 s = req.clear_tail; s != req.setup_head; s = (s + 1) & (MAX_FLOWS - 1)) {
      const tid_rdma_flow& flow = req.flows[s];
      // R7: the segment's data arrives on the flow it was set up with.
      if (fs.index >= RXE_NUM_TID_FLOWS || flow.idx != fs.index) {
        const bool cross = qp->priv->model_cross_role_clears != 0;
        const std::string owns = fs.index >= RXE_NUM_TID_FLOWS
                                     ? std::string("owns no flow")
                                     : flowcheck::StrFormat("owns flow %u", fs.index);
        c->Add(Invariant::kR7, cross ? Severity::kUpstreamDivergence : Severity::kViolation,
               "%sqp %u's live %s segment (slot %u) was set up on flow %u, but the QP %s%s",
               cross ? "[R-10] " : "", qpn, role, s, flow.idx, owns.c_str(),
               cross ? " (the other role freed the shared flow under it)" : "");
      }
      CheckPlanConsumed(flow, qpn, role, s, c);
      for (int n = 0; n < flow.tnode_cnt; ++n) {
        ForEachEntry(flow.tnode[n], [&](u32 entry) {
          int& o = owner[entry - rcd.expected_base];
          if (o >= 0) {
            c->Add(Invariant::kG7, Severity::kViolation,
                   "RcvArray entry %u belongs to two live segments (qp %u and qp %u)", entry,
                   static_cast<u32>(o), qpn);
          }
          o = static_cast<int>(qpn);
        });
      }
    }
  };
  // Each QP's READ request (requester) and TID WRITE request (responder).
  for (rvt_qp* qp : qps) {
    if (qp->priv->model_swqe != nullptr) add_live(qp->priv->model_swqe->tid_req, qp, "READ");
    if (qp->priv->model_ack != nullptr) add_live(qp->priv->model_ack->tid_req, qp, "WRITE");
  }
  const u32 orphaned = rcd.rcvarray_audit.orphaned_entries.load(std::memory_order_relaxed);
  if (orphaned != 0 && live_cnt + orphaned == used_sum) {
    c->Add(Invariant::kG5, Severity::kUpstreamDivergence,
           "[R-6] the groups count %u entries in use, the live segments hold %u: %u are held by "
           "segments whose flow array was freed (a flushed WQE), and nothing will free them",
           used_sum, live_cnt, orphaned);
  } else if (live_cnt != used_sum) {
    c->Add(Invariant::kG5, Severity::kViolation,
           "the groups count %u entries in use, the live segments hold %u", used_sum, live_cnt);
  }
}

}  // namespace internal
}  // namespace flowcheck
