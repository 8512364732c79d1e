// TENFERRO_TEST_SANITIZER_ALLOCATOR: defined when the test is built with AddressSanitizer or
// ThreadSanitizer (GCC or Clang). Their allocators report an impossible request (2^52 bytes and
// up) as a fatal error instead of returning null, so tests of the allocation-failure paths skip
// there; the release suite runs them.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TENFERRO_TEST_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TENFERRO_TEST_SANITIZER_ALLOCATOR 1
#endif
#endif
