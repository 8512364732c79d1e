// TEMPORARY STAND-IN, replaced by the CPU runtime branch (issue 3) on merge.
#pragma once
#include <memory>

namespace tenferro {
enum class BackendKind { native, blas };
struct CpuBackendOptions {
  int threads = 0;
  BackendKind kind = BackendKind::native;
};
class CpuBackend {
 public:
  CpuBackend() : CpuBackend(CpuBackendOptions{}) {}
  explicit CpuBackend(CpuBackendOptions o) : state_(std::make_shared<CpuBackendOptions>(o)) {}
  int threads() const { return state_->threads <= 0 ? 1 : state_->threads; }
  BackendKind kind() const { return state_->kind; }
  bool same_witness(const CpuBackend& o) const { return state_ == o.state_; }

 private:
  std::shared_ptr<CpuBackendOptions> state_;
};
const CpuBackend& default_backend();
}  // namespace tenferro
