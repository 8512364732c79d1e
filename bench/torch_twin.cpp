// libtorch twins of the cases (the ONLY translation unit that includes torch).
//
// Each call uses the fastest plain libtorch C++ API for the problem (mm / bmm rather than the
// generic matmul, torch::autograd::grad rather than backward() + .grad() + zero_), in the default
// grad mode, without InferenceMode: what a C++ user of libtorch writes.
#include "torch_twin.hpp"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <stdexcept>
#include <vector>

namespace bench::torch_twin {
namespace {

torch::Tensor make_input(const Shape& shape, Dt dt, std::uint64_t seed, bool requires_grad) {
  auto values = input_values(numel(shape), seed);
  auto t = torch::from_blob(values.data(), torch::IntArrayRef(shape), torch::kFloat64).clone();
  if (dt == Dt::f32) t = t.to(torch::kFloat32);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

torch::Tensor mat(const torch::Tensor& a, const torch::Tensor& b) {
  return a.dim() == 3 ? torch::bmm(a, b) : torch::mm(a, b);
}

// Forward result of a case, given its inputs (no tensor handle is copied per call).
torch::Tensor forward(const CaseSpec& c, const torch::Tensor* in) {
  switch (c.op) {
    case Op::matmul:
      return mat(in[0], in[1]);
    case Op::chain10_matmul: {
      torch::Tensor x = mat(in[0], in[1]);
      for (int i = 1; i < 10; ++i) x = mat(x, in[1]);
      return x;
    }
    case Op::sum_matmul:
      return mat(in[0], in[1]).sum();
    case Op::sum_sq:
      return (in[0] * in[0]).sum();
    case Op::add:
      return in[0] + in[1];
    case Op::sum:
      return in[0].sum();
    case Op::einsum:
      return torch::einsum(c.subscripts, at::TensorList(in, c.inputs.size()));
  }
  throw std::logic_error("unknown op");
}

}  // namespace

std::string version() { return TORCH_VERSION; }

std::string configure_threads(int threads) {
  // Inter-op threads can be set only before the inter-op pool starts; nothing here uses it.
  try {
    at::set_num_interop_threads(1);
  } catch (const std::exception&) {
  }
  at::set_num_threads(threads);
  return "at::set_num_threads(" + std::to_string(threads) +
         "), at::get_num_threads()=" + std::to_string(at::get_num_threads()) +
         ", set_num_interop_threads(1); " + at::get_parallel_info();
}

std::unique_ptr<Workload> make(const CaseSpec& c, std::string* why_not) {
  try {
    std::vector<torch::Tensor> in;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      in.push_back(make_input(c.inputs[i], c.dtype, i + 1, c.grad));
    }
    if (c.grad) {
      return make_workload([in, cs = &c]() -> std::vector<torch::Tensor> {
        torch::Tensor loss = forward(*cs, in.data());
        return torch::autograd::grad({loss}, in);
      });
    }
    return make_workload([in, cs = &c] { return forward(*cs, in.data()); });
  } catch (const std::exception& e) {
    if (why_not) *why_not = e.what();
    return nullptr;
  }
}

std::vector<double> reference(const CaseSpec& c) {
  std::vector<torch::Tensor> in;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    in.push_back(make_input(c.inputs[i], c.dtype, i + 1, c.grad));
  }
  std::vector<torch::Tensor> outs;
  if (c.grad) {
    outs = torch::autograd::grad({forward(c, in.data())}, in);
  } else {
    outs.push_back(forward(c, in.data()));
  }
  std::vector<double> flat;
  for (const auto& t : outs) {
    auto d = t.detach().to(torch::kFloat64).contiguous();
    const double* p = d.data_ptr<double>();
    flat.insert(flat.end(), p, p + d.numel());
  }
  return flat;
}

}  // namespace bench::torch_twin
