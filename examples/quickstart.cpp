// Placeholder quickstart (run by `make demo`): dtype promotion from <tenferro/dtype.hpp>.
// To be replaced by a real tour of eager, autodiff and traced execution.
#include <cstdio>
#include <string_view>
#include <tenferro/dtype.hpp>

int main() {
  using tenferro::DType;
  const DType a = DType::f32, b = DType::c128;
  const DType r = tenferro::promote(a, b);
  const std::string_view na = tenferro::dtype_name(a), nb = tenferro::dtype_name(b),
                         nr = tenferro::dtype_name(r);
  std::printf("tenferro quickstart: promote(%.*s, %.*s) = %.*s\n", static_cast<int>(na.size()),
              na.data(), static_cast<int>(nb.size()), nb.data(), static_cast<int>(nr.size()),
              nr.data());
  return 0;
}
