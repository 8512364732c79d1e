// Uses the installed package only: public headers + tenferro::tenferro.
#include <cstdio>
#include <string>
#include <tenferro/dtype.hpp>
#include <tenferro/error.hpp>

int main() {
  const tenferro::Error e(tenferro::ErrorKind::InvalidArgument, "consumer: constructed");
  if (e.kind() != tenferro::ErrorKind::InvalidArgument ||
      std::string(e.what()).find("consumer: constructed") == std::string::npos) {
    std::puts("tenferro consumer: unexpected Error contents");
    return 1;
  }
  static_assert(tenferro::promote(tenferro::DType::f64, tenferro::DType::c64) ==
                tenferro::DType::c128);
  const auto name = tenferro::dtype_name(tenferro::DType::c128);
  std::printf("tenferro consumer: ok (%s; %.*s)\n", e.what(), static_cast<int>(name.size()),
              name.data());
  return 0;
}
