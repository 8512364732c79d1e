// libtorch twins of the cases (the ONLY translation unit that includes torch).
//
// Each call uses the fastest plain libtorch C++ API for the problem (mm / bmm rather than the
// generic matmul, torch::autograd::grad rather than backward() + .grad() + zero_), in the default
// grad mode, without InferenceMode: what a C++ user of libtorch writes. torch::einsum contracts
// left to right unless given a path (the Python wrapper asks opt_einsum for one when it is
// installed; C++ callers get the default order): the "libtorch_path" variant passes tenferro's.
#include "torch_twin.hpp"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <array>
#include <stdexcept>
#include <vector>

namespace bench::torch_twin {
namespace {

// Input `index` of `c`, from the values the tenferro side uses too.
torch::Tensor make_input(const CaseSpec& c, std::size_t index) {
  auto values = case_input_values(c, index);
  auto t =
      torch::from_blob(values.data(), torch::IntArrayRef(c.inputs[index]), torch::kFloat64).clone();
  if (c.dtype == Dt::f32) t = t.to(torch::kFloat32);
  if (c.differentiated()) t.requires_grad_(true);
  return t;
}

std::vector<torch::Tensor> make_inputs(const CaseSpec& c) {
  std::vector<torch::Tensor> in;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) in.push_back(make_input(c, i));
  return in;
}

torch::Tensor mat(const torch::Tensor& a, const torch::Tensor& b) {
  return a.dim() == 3 ? torch::bmm(a, b) : torch::mm(a, b);
}

// Forward result of a case whose op returns one tensor, given its inputs (no tensor handle is
// copied per call). `path`: torch::einsum's path argument (nullopt: its default order).
torch::Tensor forward(const CaseSpec& c, const torch::Tensor* in,
                      at::OptionalIntArrayRef path = c10::nullopt) {
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
    case Op::mul:
      return in[0] * in[1];
    case Op::exp:
      return in[0].exp();
    case Op::log:
      return in[0].log();
    case Op::sin:
      return in[0].sin();
    case Op::tanh:
      return in[0].tanh();
    case Op::sum:
      return in[0].sum();
    case Op::mean:
      return in[0].mean();
    case Op::einsum:
      return torch::einsum(c.subscripts, at::TensorList(in, c.inputs.size()), path);
    case Op::cholesky:
      return torch::linalg_cholesky(in[0]);
    case Op::solve:
      return torch::linalg_solve(in[0], in[1]);
    case Op::sum_svdvals:
      return torch::linalg_svdvals(in[0]).sum();
    case Op::sum_solve:
      return torch::linalg_solve(in[0], in[1]).sum();
    case Op::sum_eigvalsh:
      return torch::linalg_eigvalsh(in[0], "L").sum();
    case Op::pinv:  // atol = rtol = None: rtol = max(m, n) eps, as tenferro's default
      return torch::linalg_pinv(in[0], c10::optional<double>(), c10::optional<double>(), false);
    case Op::matrix_exp:
      return torch::linalg_matrix_exp(in[0]);
    case Op::rfft:
      return torch::fft::rfft(in[0]);
    case Op::fft:
      return torch::fft::fft(in[0]);
    case Op::svd:
    case Op::qr:
    case Op::eigh:
    case Op::eig:
    case Op::lu_factor:
      break;  // forward_all
  }
  throw std::logic_error("forward: not a single-output op");
}

// Every output of a multi_output op, in its order (undefined tensors after the last), all kept
// by the caller: allocated in the clock, released outside it, like tenferro's forward_all.
using Outputs = std::array<torch::Tensor, 3>;
Outputs forward_all(const CaseSpec& c, const torch::Tensor* in) {
  switch (c.op) {
    case Op::svd: {
      auto [U, S, Vh] = torch::linalg_svd(in[0], /*full_matrices=*/false);
      return {std::move(U), std::move(S), std::move(Vh)};
    }
    case Op::qr: {
      auto [Q, R] = torch::linalg_qr(in[0], "reduced");
      return {std::move(Q), std::move(R), torch::Tensor()};
    }
    case Op::eigh: {
      auto [w, V] = torch::linalg_eigh(in[0], "L");
      return {std::move(w), std::move(V), torch::Tensor()};
    }
    case Op::eig: {
      auto [w, V] = torch::linalg_eig(in[0]);
      return {std::move(w), std::move(V), torch::Tensor()};
    }
    case Op::lu_factor: {
      auto [LU, pivots] = torch::linalg_lu_factor(in[0]);
      return {std::move(LU), std::move(pivots), torch::Tensor()};
    }
    default:
      break;
  }
  throw std::logic_error("forward_all: not a multi-output op");
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

std::unique_ptr<Workload> make(const CaseSpec& c, bool retain_outputs,
                               const std::vector<std::int64_t>& einsum_path, std::string* why_not) {
  try {
    const std::vector<torch::Tensor> in = make_inputs(c);
    switch (c.mode) {
      case Mode::grad:
        return make_workload(
            [in, cs = &c]() -> std::vector<torch::Tensor> {
              torch::Tensor loss = forward(*cs, in.data());
              return torch::autograd::grad({loss}, in);
            },
            retain_outputs);
      case Mode::value_and_grad:  // the loss, then the gradients (tenferro's ValueAndGrad)
        return make_workload(
            [in, cs = &c]() -> std::pair<torch::Tensor, std::vector<torch::Tensor>> {
              torch::Tensor loss = forward(*cs, in.data());
              std::vector<torch::Tensor> grads = torch::autograd::grad({loss}, in);
              return {std::move(loss), std::move(grads)};
            },
            retain_outputs);
      case Mode::call:
        break;
    }
    if (multi_output(c.op)) {
      return make_workload([in, cs = &c] { return forward_all(*cs, in.data()); }, retain_outputs);
    }
    if (!einsum_path.empty()) {
      if (c.op != Op::einsum)
        throw std::logic_error("an einsum path for a case that is not einsum");
      return make_workload(
          [in, cs = &c, path = einsum_path] {
            return forward(*cs, in.data(), at::IntArrayRef(path));
          },
          retain_outputs);
    }
    return make_workload([in, cs = &c] { return forward(*cs, in.data()); }, retain_outputs);
  } catch (const std::exception& e) {
    if (why_not) *why_not = e.what();
    return nullptr;
  }
}

std::vector<double> reference(const CaseSpec& c) {
  const std::vector<torch::Tensor> in = make_inputs(c);
  std::vector<torch::Tensor> outs;
  if (c.differentiated()) {
    torch::Tensor loss = forward(c, in.data());
    if (c.mode == Mode::value_and_grad) outs.push_back(loss);
    for (auto& g : torch::autograd::grad({loss}, in)) outs.push_back(std::move(g));
  } else if (multi_output(c.op)) {
    for (auto& t : forward_all(c, in.data())) {
      if (t.defined()) outs.push_back(std::move(t));
    }
  } else {
    outs.push_back(forward(c, in.data()));
  }
  std::vector<double> flat;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    torch::Tensor t = outs[k].detach();
    if (t.is_complex()) t = torch::view_as_real(t.resolve_conj());  // interleaved (re, im)
    if (c.op == Op::lu_factor && k == 1) t = t - 1;  // LAPACK's 1-based pivots; ours are 0-based
    auto d = t.to(torch::kFloat64).contiguous();
    const double* p = d.data_ptr<double>();
    flat.insert(flat.end(), p, p + d.numel());
  }
  canonicalize_result(c, flat);
  return flat;
}

}  // namespace bench::torch_twin
