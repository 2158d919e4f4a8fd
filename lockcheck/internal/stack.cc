// lockcheck/internal/stack.cc: see stack.h. Stacks come from glibc's
// backtrace(); names from the ELF symbol table of the object holding the
// address (.symtab, else .dynsym: static and anonymous-namespace functions
// too), demangled by the C++ runtime. Only the C library and the C++
// runtime: no symbolizer library in every build.
#include "lockcheck/internal/stack.h"

#include <cxxabi.h>
#include <elf.h>
#include <errno.h>  // program_invocation_short_name
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "lockcheck/internal/threads.h"
#include "lockcheck/internal/tsan.h"

namespace lockcheck {
namespace internal {
namespace {

// The loaded object holding an address: its file and load bias.
struct Object {
  uintptr_t pc = 0;
  const char* file = nullptr;
  uintptr_t bias = 0;
};

int FindObject(dl_phdr_info* info, size_t, void* data) {
  auto* o = static_cast<Object*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && o->pc >= start && o->pc < start + ph.p_memsz) {
      // The main program has no name here.
      o->file = info->dlpi_name[0] != '\0' ? info->dlpi_name : "/proc/self/exe";
      o->bias = info->dlpi_addr;
      return 1;
    }
  }
  return 0;
}

// An ELF file mapped read-only, once per process and never unmapped: a
// report's stack is symbolized frame by frame, and mapping the binary (tens
// of MB) for each frame cost an mmap, page faults and an munmap each time,
// which under TSan also resets the mapping's shadow (8% of a --minimize run,
// whose failing executions each report a destroyed held lock).
struct MappedFile {
  const char* base = nullptr;  // nullptr: the file could not be mapped
  size_t size = 0;
};

// Constant-initialized, not function-local statics (tsan.h); the map is
// never destroyed, as a report may come while the process exits.
std::mutex g_files_mu;
std::map<std::string, MappedFile>* g_files = nullptr;  // guarded by g_files_mu

const MappedFile& MapOnce(const char* path) {
  IgnoredLockGuard lock(g_files_mu);
  if (g_files == nullptr) g_files = new std::map<std::string, MappedFile>;
  auto [it, fresh] = g_files->try_emplace(path);
  if (!fresh) return it->second;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return it->second;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      it->second = {static_cast<const char*>(map), static_cast<size_t>(st.st_size)};
    }
  }
  close(fd);
  return it->second;
}

// The mangled name of the function symbol of ELF file `path` that holds
// `addr` (the file's own addresses), into `out`; false if none.
bool SymbolIn(const char* path, uintptr_t addr, std::string* out) {
  const MappedFile& file = MapOnce(path);
  if (file.base == nullptr) return false;
  const size_t size = file.size;
  const char* base = file.base;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  if (size < sizeof(ElfW(Ehdr)) || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_shoff + uint64_t{eh->e_shnum} * sizeof(ElfW(Shdr)) > size) {
    return false;
  }
  const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(base + eh->e_shoff);
  for (const uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != type || sh[i].sh_link >= eh->e_shnum ||
          sh[i].sh_offset + sh[i].sh_size > size) {
        continue;
      }
      const ElfW(Shdr)& names = sh[sh[i].sh_link];
      const auto* syms = reinterpret_cast<const ElfW(Sym)*>(base + sh[i].sh_offset);
      for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        const ElfW(Sym)& s = syms[k];
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0 || addr < s.st_value ||
            addr - s.st_value >= (s.st_size ? s.st_size : 1) || s.st_name >= names.sh_size ||
            names.sh_offset + names.sh_size > size) {
          continue;
        }
        const char* name = base + names.sh_offset + s.st_name;
        out->assign(name, strnlen(name, names.sh_size - s.st_name));
        return true;
      }
    }
  }
  return false;
}

// "ns::f(int, char*) const" -> "ns::f()": the form reports have always
// printed (the function, not its overload).
std::string WithoutParameters(std::string name) {
  const size_t close = name.rfind(')');
  if (close == std::string::npos) return name;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i) + "()";
  }
  return name;
}

// Symbolizes `pc` (a return address, so pc - 1 is inside the call) into
// `out`; false if unknown. A frame in a loaded object without a symbol for
// it (a static function of a stripped system library: libc's start_thread,
// libstdc++'s thread trampoline) is still false, with `*where` set to
// "(libc.so.6+0x271f5)", the object and the return address's offset in it,
// as the sanitizers print such a frame (addr2line with the library's debug
// symbols names it). The runtime's demangler allocates: never let TSan see
// it as synchronization between our threads.
bool SymbolizeInto(const void* pc, std::string* out, std::string* where = nullptr) {
  TsanIgnoreScope ignore;
  Object o;
  o.pc = reinterpret_cast<uintptr_t>(pc) - 1;
  std::string mangled;
  if (dl_iterate_phdr(FindObject, &o) == 0) return false;
  if (!SymbolIn(o.file, o.pc - o.bias, &mangled)) {
    if (where != nullptr) {
      // The main program is mapped as /proc/self/exe: shown by its name.
      const char* slash = std::strrchr(o.file, '/');
      const char* name = std::strcmp(o.file, "/proc/self/exe") == 0 ? program_invocation_short_name
                         : slash != nullptr                          ? slash + 1
                                                                     : o.file;
      char buf[32];
      std::snprintf(buf, sizeof buf, "+0x%zx)", static_cast<size_t>(o.pc + 1 - o.bias));
      *where = std::string("(") + name + buf;
    }
    return false;
  }
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  *out = status == 0 && demangled != nullptr ? WithoutParameters(demangled) : mangled;
  std::free(demangled);
  return true;
}

}  // namespace

__attribute__((noinline)) StackTrace CaptureStack() {
  StackTrace st;
  {
    TsanIgnoreScope ignore;
    void* pcs[kMaxFrames + 1];
    const int n = backtrace(pcs, kMaxFrames + 1);
    // Frame 0 is this function.
    st.depth = n > 0 ? n - 1 : 0;
    std::memcpy(st.pcs, pcs + 1, sizeof(void*) * static_cast<size_t>(st.depth));
  }
  st.thread = CurrentThreadLabel();
  return st;
}

std::string SymbolizeReturnAddress(const void* pc) {
  std::string name;
  if (SymbolizeInto(pc, &name)) return name;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", pc);
  return buf;
}

std::string FormatStack(const StackTrace& stack, const char* indent) {
  std::string out;
  bool skipping = true;
  int n = 0;
  for (int i = 0; i < stack.depth; ++i) {
    std::string sym, where = "(unknown)";
    const bool known = SymbolizeInto(stack.pcs[i], &sym, &where);
    if (skipping && known && sym.compare(0, 11, "lockcheck::") == 0) continue;
    skipping = false;
    char pc[32];
    std::snprintf(pc, sizeof pc, "%p", stack.pcs[i]);
    out += std::string(indent) + "#" + std::to_string(n++) + " " + pc + " " +
           (known ? sym : where) + "\n";
  }
  if (out.empty()) out = std::string(indent) + "(no stack)\n";
  return out;
}

}  // namespace internal
}  // namespace lockcheck
