#include "tenferro/error.hpp"

namespace tenferro {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::InvalidArgument:
      return "InvalidArgument";
    case ErrorKind::ShapeMismatch:
      return "ShapeMismatch";
    case ErrorKind::DTypeMismatch:
      return "DTypeMismatch";
    case ErrorKind::RuntimeState:
      return "RuntimeState";
    case ErrorKind::Unsupported:
      return "Unsupported";
    case ErrorKind::BackendFailure:
      return "BackendFailure";
    case ErrorKind::OutOfMemory:
      return "OutOfMemory";
    case ErrorKind::LinAlgError:
      return "LinAlgError";
  }
  return "Unknown";
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(std::string(to_string(kind)) + ": " + message),
      kind_(kind),
      message_(message) {}

ContractViolation::ContractViolation(const std::string& message)
    : std::logic_error("ContractViolation: " + message) {}

}  // namespace tenferro
