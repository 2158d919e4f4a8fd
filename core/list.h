// core/list.h: the part of the kernel's <linux/list.h> the flow layer uses.
//
// A circular doubly-linked list threaded through a `list_head` embedded in
// each element; an empty list (or an unlinked node after list_del_init) points
// at itself. list_first_entry() maps a node back to its element with offsetof
// (the kernel's container_of), so element types must be standard-layout: each
// such type static_asserts it next to its definition.
//
// Nothing here locks: the owner of the list (e.g. exp_lock for the TID wait
// queues) serializes every call.
#ifndef FLOWCHECK_CORE_LIST_H_
#define FLOWCHECK_CORE_LIST_H_

#include <cstddef>

struct list_head {
  list_head* next;
  list_head* prev;
};

inline void INIT_LIST_HEAD(list_head* list) {
  list->next = list;
  list->prev = list;
}

inline bool list_empty(const list_head* head) { return head->next == head; }

// Inserts `node` just before `head`, i.e. at the tail of the list.
inline void list_add_tail(list_head* node, list_head* head) {
  list_head* prev = head->prev;
  node->next = head;
  node->prev = prev;
  prev->next = node;
  head->prev = node;
}

// Unlinks `entry` from whatever list it is on and makes it an empty list, so
// list_empty(entry) is true afterwards. The node does not know which list it
// was on (hazard of docs/kernel-hazards.md comes from exactly this).
inline void list_del_init(list_head* entry) {
  entry->prev->next = entry->next;
  entry->next->prev = entry->prev;
  INIT_LIST_HEAD(entry);
}

// container_of(ptr, type, member): the element that embeds `ptr` as `member`.
#define container_of(ptr, type, member) \
  (reinterpret_cast<type*>(reinterpret_cast<char*>(ptr) - offsetof(type, member)))

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_first_entry_or_null(head, type, member) \
  (list_empty(head) ? nullptr : list_first_entry(head, type, member))

// linux/list.h's typed iteration (GNU typeof, as in the kernel).
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member)                                  \
  for (pos = list_first_entry(head, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_next_entry(pos, member))
#define list_prepare_entry(pos, head, member) \
  ((pos) ? (pos) : list_entry(head, __typeof__(*pos), member))
inline bool list_is_last(const list_head* list, const list_head* head) {
  return list->next == head;
}

#endif  // FLOWCHECK_CORE_LIST_H_
