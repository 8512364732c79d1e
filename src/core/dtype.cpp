#include "tenferro/dtype.hpp"

#include <string>

#include "tenferro/error.hpp"

namespace tenferro {

std::string_view dtype_name(DType d) noexcept {
  switch (d) {
    case DType::boolean:
      return "bool";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::i8:
      return "i8";
    case DType::i16:
      return "i16";
    case DType::u8:
      return "u8";
    case DType::u16:
      return "u16";
    case DType::u32:
      return "u32";
    case DType::u64:
      return "u64";
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::c64:
      return "c64";
    case DType::c128:
      return "c128";
  }
  return "?";
}

namespace detail {
void throw_not_floating(DType d, const char* where) {
  throw Error(ErrorKind::DTypeMismatch,
              std::string(where) + ": got dtype " + std::string(dtype_name(d)) +
                  ", expected a floating dtype (f32, f64, c64, c128); this kernel should not have "
                  "been reached (a shape rule let it through)");
}
}  // namespace detail

}  // namespace tenferro
