#include "tenferro/dtype.hpp"

namespace tenferro {

std::string_view dtype_name(DType d) noexcept {
  switch (d) {
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

}  // namespace tenferro
