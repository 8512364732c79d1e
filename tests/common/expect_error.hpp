// The one "expect a typed error" check of the test suites.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "tenferro/error.hpp"

namespace tenferro::testing {

/// Expects f() to throw tenferro::Error of `kind` whose message (what() without the kind
/// prefix) contains every needle.
template <class F>
void expect_error(F&& f, ErrorKind kind, std::initializer_list<const char*> needles = {}) {
  try {
    f();
    ADD_FAILURE() << "expected an Error of kind " << to_string(kind) << ", nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const char* n : needles)
      EXPECT_NE(e.message().find(n), std::string::npos) << "missing '" << n << "' in: " << e.what();
  }
}

/// The same with the kind first (the order the table-driven suites read best in).
template <class F>
void expect_error(ErrorKind kind, F&& f, std::initializer_list<const char*> needles = {}) {
  expect_error(std::forward<F>(f), kind, needles);
}

}  // namespace tenferro::testing
