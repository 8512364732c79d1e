// tenferro error model.
//
// Two families, mirroring the design's contract table:
//  - tenferro::Error (a std::runtime_error) for bad input and invalid runtime state on fallible
//    paths. kind() says which; the message names the op, the shapes/dtypes and the expectation.
//  - tenferro::ContractViolation (a std::logic_error) for misuse of infallible entry points
//    (e.g. a session inside a session). The process survives; RAII restores every guard.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace tenferro {

enum class ErrorKind {
  InvalidArgument,
  ShapeMismatch,
  DTypeMismatch,
  RuntimeState,
  Unsupported,
  BackendFailure,
  /// A byte count that cannot be represented or allocated (docs/errors.md, "Limits").
  OutOfMemory,
  /// A numerical failure of a linear-algebra op on valid input: a singular matrix (solve, inv), a
  /// matrix that is not positive definite (cholesky), a non-finite input to an iterative
  /// decomposition (svd, eigh). The message names the op and the batch index (docs/linalg.md).
  LinAlgError,
};

/// Name of an error kind, e.g. "ShapeMismatch".
std::string_view to_string(ErrorKind kind) noexcept;

/// A typed, recoverable error. what() is "<Kind>: <message>".
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const noexcept { return kind_; }
  /// The message without the "<Kind>: " prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorKind kind_;
  std::string message_;
};

/// Misuse of an infallible entry point (the C++ form of a Rust panic in the spec).
class ContractViolation : public std::logic_error {
 public:
  explicit ContractViolation(const std::string& message);
};

}  // namespace tenferro
