// Bad input that used to crash the process, part 1: byte counts and allocation failures
// (issue 12, "Bad input that crashes the process"; Note [Byte counts] in src/core/alloc.hpp).
//
// Every scenario ends as a typed tenferro::Error whose message names the op. None of these tests
// asks the heap for an impossible block (ASan would abort on such a request instead of throwing):
// byte counts overflow before any allocation, or the process-wide allocation limit is lowered.
// The one test that needs a real heap failure is skipped under AddressSanitizer.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "common/expect_error.hpp"
#include "common/sanitizers.hpp"
#include "core/alloc.hpp"
#include "tenferro/tenferro.hpp"

using namespace tenferro;
using tenferro::testing::expect_error;

namespace {

constexpr std::int64_t k2p60 = std::int64_t{1} << 60;
constexpr std::int64_t k2p61 = std::int64_t{1} << 61;

// A legal view of 2^61 f64 elements over a one-element storage.
Tensor huge_broadcast(std::int64_t n = k2p61) { return broadcast_to(ones({1}), {n}); }

// Lowers the allocation limit for one test (Note [Byte counts]).
struct AllocationLimit {
  explicit AllocationLimit(std::size_t bytes) : previous(detail::set_allocation_limit(bytes)) {}
  ~AllocationLimit() { detail::set_allocation_limit(previous); }
  std::size_t previous;
};

// Before: a storage of 0 bytes for 2^61 elements (2^64 bytes wrapped to 0).
TEST(BadInput, EmptyByteCountOverflowIsTypedError) {
  expect_error(ErrorKind::OutOfMemory, [] { Tensor::empty({k2p61}, DType::f64); },
               {"empty", "2305843009213693952 elements", "18446744073709551616 bytes"});
  expect_error(ErrorKind::OutOfMemory,
               [] {
                 Tensor::empty({k2p60, 2}, DType::c64);
               },
               {"empty", "[1152921504606846976, 2]"});
  // The element count itself overflowing int64 stays InvalidArgument.
  expect_error(ErrorKind::InvalidArgument,
               [] {
                 Tensor::empty({k2p61, 8}, DType::f32);
               },
               {"empty", "int64"});
  expect_error(ErrorKind::InvalidArgument, [] { Tensor::empty({-1}, DType::f32); },
               {"empty", "negative dimension"});
}

// Before: segmentation fault (the fill wrote 2^60 elements into a 64-byte block).
TEST(BadInput, FactoryByteCountOverflowIsTypedError) {
  expect_error(ErrorKind::OutOfMemory, [] { zeros({k2p60}, DType::c128); }, {"zeros", "c128"});
  expect_error(ErrorKind::OutOfMemory, [] { ones({k2p61}); }, {"ones"});
  expect_error(ErrorKind::OutOfMemory, [] { full({k2p61}, 2.0); }, {"full"});
  expect_error(ErrorKind::OutOfMemory, [] { rand({k2p61}, 1); }, {"rand"});
  expect_error(ErrorKind::OutOfMemory, [] { randn({2, k2p60}, 1, DType::c64); }, {"randn"});
  expect_error(ErrorKind::InvalidArgument, [] { rand({-3}, 1); }, {"rand", "negative"});
}

// Before: add/copy/contiguous of the broadcast view crashed (an output of 2^64 bytes wrapped to
// a 64-byte pool block). Now the view is fine and materialising it is OutOfMemory naming the op.
TEST(BadInput, HugeBroadcastViewThenMaterialiseIsTypedError) {
  Tensor b = huge_broadcast();
  EXPECT_EQ(b.numel(), k2p61);
  EXPECT_EQ(b.strides(), (Dims{0}));
  expect_error(ErrorKind::OutOfMemory, [&] { add(b, b); }, {"add", "2305843009213693952"});
  expect_error(ErrorKind::OutOfMemory, [&] { copy(b); }, {"copy"});
  expect_error(ErrorKind::OutOfMemory, [&] { contiguous(b); }, {"copy"});
  expect_error(ErrorKind::OutOfMemory, [&] { b.contiguous(); }, {"copy"});
  expect_error(ErrorKind::OutOfMemory, [&] { exp(b); }, {"exp"});
  expect_error(ErrorKind::OutOfMemory, [&] { cast(b, DType::f32); }, {"cast"});
  // The backend is intact: a normal op still works.
  EXPECT_EQ(add(ones({2}), ones({2})).to_vector<double>(), (std::vector<double>{2, 2}));
}

// Before: std::bad_alloc escaped from sum (its partial sums or gather buffer, sized from the 2^62
// elements of the view). (A reduction or dot product of such a view that needs no such buffer
// is a legal, if endless, computation, as in NumPy: not tested.)
TEST(BadInput, ReductionAndContractionOfHugeBroadcastAreTypedErrors) {
  AllocationLimit limit(std::size_t{1} << 30);  // 2^46 partial sums fit in int64, not in memory
  Tensor b2 = broadcast_to(ones({1, 2}), {k2p61, 2});
  expect_error(ErrorKind::OutOfMemory, [&] { sum(b2, {0}); }, {"sum", "reduce"});
  expect_error(ErrorKind::OutOfMemory, [&] { max(b2, {0}); }, {"max"});
  expect_error(ErrorKind::OutOfMemory, [&] { sum(permute(b2, {1, 0}), {1}); }, {"sum"});
  Tensor b = huge_broadcast();
  expect_error(ErrorKind::OutOfMemory, [&] { outer(ones({2}), b); }, {"dot_general"});
  expect_error(ErrorKind::OutOfMemory, [&] { einsum("i,j->ij", ones({2}), b); }, {"dot_general"});
  // An outer product whose element count does not fit in int64 at all.
  Tensor c = broadcast_to(ones({1}), {std::int64_t{1} << 40});
  expect_error(ErrorKind::InvalidArgument, [&] { outer(c, c); }, {"dot_general", "int64"});
}

// Before: std::length_error ("cannot create std::vector larger than max_size()") escaped.
TEST(BadInput, HugeBroadcastToHostIsTypedError) {
  Tensor b = huge_broadcast();
  expect_error(ErrorKind::OutOfMemory, [&] { b.to_vector<double>(); }, {"to_vector"});
  expect_error(ErrorKind::OutOfMemory, [&] { allclose(b, b); }, {"allclose"});
}

// The allocation limit stands in for a failing heap: every allocator turns the failure into
// OutOfMemory naming the op and the size, and nothing leaks or stays half-built.
TEST(BadInput, AllocationFailureIsOutOfMemoryNamingOpAndSize) {
  Tensor a = ones({100000}), b = ones({100000});
  const BufferPoolStats before = default_backend().buffer_pool_stats();
  {
    AllocationLimit limit(64 << 10);
    expect_error(ErrorKind::OutOfMemory, [] { zeros({100000}); }, {"zeros", "800000 bytes"});
    expect_error(ErrorKind::OutOfMemory, [] { arange(0, 1e5); }, {"arange"});
    expect_error(ErrorKind::OutOfMemory, [&] { add(a, b); }, {"add", "800000 bytes"});
    expect_error(ErrorKind::OutOfMemory, [] { heap_storage(1 << 20); },
                 {"heap_storage", "1048576 bytes"});
    expect_error(ErrorKind::OutOfMemory, [&] { a.to_vector<double>(); }, {"to_vector"});
    // Small work still runs under the limit.
    EXPECT_EQ(add(ones({3}), ones({3})).to_vector<double>(), (std::vector<double>{2, 2, 2}));
  }
  const BufferPoolStats after = default_backend().buffer_pool_stats();
  EXPECT_EQ(after.outstanding_buffers, before.outstanding_buffers);
  EXPECT_EQ(after.outstanding_bytes, before.outstanding_bytes);
  EXPECT_EQ(add(a, b).at<double>({99999}), 2.0);
  EXPECT_EQ(a.at<double>({0}), 1.0);
}

// A real heap failure (2^62 bytes, representable but impossible): OutOfMemory, not
// std::bad_alloc. ASan and TSan abort on such a request instead of throwing, so not under them.
TEST(BadInput, HeapExhaustionIsOutOfMemory) {
#ifdef TENFERRO_TEST_SANITIZER_ALLOCATOR
  GTEST_SKIP() << "the sanitizer allocator reports impossible allocations instead of failing them";
#else
  expect_error(ErrorKind::OutOfMemory, [] { Tensor::empty({std::int64_t{1} << 59}, DType::f64); },
               {"empty", "4611686018427387904 bytes", "heap"});
  expect_error(ErrorKind::OutOfMemory, [] { add(huge_broadcast(std::int64_t{1} << 59), 1.0); },
               {"add"});
#endif
}

// Before: a prepared program sized a 2^64-byte intermediate as 0 bytes and ran into it.
TEST(BadInput, PrepareHugeIntermediateIsTypedError) {
  Program p = trace(
      [](std::span<const Tensor> x) {
        return std::vector<Tensor>{sum(exp(broadcast_to(x[0], {k2p61})))};
      },
      {ValueSpec{{1}}});
  Runtime rt;
  expect_error(ErrorKind::OutOfMemory, [&] { rt.prepare(p); }, {"prepare", "2^60"});
  // Eagerly the same program fails at the exp.
  expect_error(ErrorKind::OutOfMemory, [] { sum(exp(broadcast_to(ones({1}), {k2p61}))); }, {"exp"});
}

TEST(BadInput, OutOfMemoryHasItsOwnKindName) {
  EXPECT_EQ(to_string(ErrorKind::OutOfMemory), "OutOfMemory");
  try {
    Tensor::empty({k2p61}, DType::f64);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("OutOfMemory: empty: ", 0), 0u) << e.what();
  }
}

}  // namespace
