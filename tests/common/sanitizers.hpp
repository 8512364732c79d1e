// TENFERRO_TEST_ASAN: defined when the test is built with AddressSanitizer (GCC or Clang), for
// tests whose allocation-failure paths ASan's allocator answers differently.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TENFERRO_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TENFERRO_TEST_ASAN 1
#endif
#endif
