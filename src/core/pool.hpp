// Per-thread free lists for small fixed-size blocks: layout records (Note [Layout record]) and
// the tape's nodes and aux blocks.
//
// Note [Tape pool]: recording a node allocates its TapeNode (with its shared_ptr control block)
// and one TensorAux per output; every op result may need a layout record. They come from a
// per-thread, per-size free list, so a training loop that records and frees the same graph shape
// every step reaches a steady state with no calls into the heap. A block freed on another thread
// joins that thread's list (the blocks are plain heap blocks, so moving between lists is harmless).
// Each list keeps at most kMaxFree blocks and frees its blocks at thread exit; a block released
// after that goes to the heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace tenferro::detail {

template <std::size_t Size, std::size_t Align>
class FreeList {
 public:
  static void* take() {
    State& s = state();
    if (s.head) {
      Block* b = s.head;
      s.head = b->next;
      --s.count;
      return b;
    }
    if (!s.dead) (void)reaper();  // first use on this thread: arm the thread-exit cleanup
    return ::operator new (kBytes, std::align_val_t{kAlign});
  }
  static void give(void* p) noexcept {
    State& s = state();
    if (s.dead || s.count >= kMaxFree) {
      ::operator delete (p, std::align_val_t{kAlign});
      return;
    }
    // A thread may only ever free blocks (a consumer dropping tensors another thread made): the
    // first block it keeps arms the thread-exit cleanup too, or its list would leak at exit.
    if (s.count == 0) (void)reaper();
    auto* b = static_cast<Block*>(p);
    b->next = s.head;
    s.head = b;
    ++s.count;
  }

 private:
  struct Block {
    Block* next;
  };
  static constexpr std::size_t kBytes = Size < sizeof(Block) ? sizeof(Block) : Size;
  static constexpr std::size_t kAlign = Align < alignof(Block) ? alignof(Block) : Align;
  static constexpr std::uint32_t kMaxFree = 4096;
  // Trivially destructible, so it stays usable while other thread_locals are being destroyed.
  struct State {
    Block* head;
    std::uint32_t count;
    bool dead;
  };
  struct Reaper {
    ~Reaper() {
      State& s = state();
      while (s.head) {
        Block* n = s.head->next;
        ::operator delete (s.head, std::align_val_t{kAlign});
        s.head = n;
      }
      s.count = 0;
      s.dead = true;
    }
  };
  static State& state() noexcept {
    thread_local State s{};
    return s;
  }
  static Reaper& reaper() {
    thread_local Reaper r;
    return r;
  }
};

/// Allocator for std::allocate_shared drawing single objects from FreeList (Note [Tape pool]).
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit
  T* allocate(std::size_t n) {
    if (n == 1) return static_cast<T*>(FreeList<sizeof(T), alignof(T)>::take());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1)
      FreeList<sizeof(T), alignof(T)>::give(p);
    else
      std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace tenferro::detail
