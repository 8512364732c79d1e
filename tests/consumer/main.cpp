// Uses the installed package only: public headers + tenferro::tenferro.
#include <cstdio>
#include <string>
#include <tenferro/dtype.hpp>
#include <tenferro/error.hpp>
#include <tenferro/tensor.hpp>

int main() {
  const tenferro::Error e(tenferro::ErrorKind::InvalidArgument, "consumer: constructed");
  if (e.kind() != tenferro::ErrorKind::InvalidArgument ||
      std::string(e.what()).find("consumer: constructed") == std::string::npos) {
    std::puts("tenferro consumer: unexpected Error contents");
    return 1;
  }
  static_assert(tenferro::promote(tenferro::DType::f64, tenferro::DType::c64) ==
                tenferro::DType::c128);
  // Only core's factories and Tensor's own view methods: they reach the catalog ops through the
  // table the op layer installs (Note [Core hooks]); the installed link interface keeps it linked.
  const tenferro::Tensor m = tenferro::arange(6).reshape({2, 3}).transpose().contiguous();
  if (m.shape() != tenferro::Dims{3, 2} || m.at<double>({2, 1}) != 5.0 ||
      m.at<double>({0, 1}) != 3.0) {
    std::puts("tenferro consumer: Tensor::reshape/transpose/contiguous gave wrong values");
    return 1;
  }
  const auto name = tenferro::dtype_name(tenferro::DType::c128);
  std::printf("tenferro consumer: ok (%s; %.*s)\n", e.what(), static_cast<int>(name.size()),
              name.data());
  return 0;
}
