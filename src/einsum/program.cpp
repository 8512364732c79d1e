// Lowering an einsum network to catalog ops and running it (Note [Einsum lowering]).
#include "einsum/program.hpp"

#include <algorithm>

#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro::detail {
namespace {

using einsum::Label;
using einsum::LabelList;

std::int64_t index_of(const LabelList& ls, Label l) {
  return std::find(ls.begin(), ls.end(), l) - ls.begin();
}
bool contains(const LabelList& ls, Label l) {
  return std::find(ls.begin(), ls.end(), l) != ls.end();
}

// Emits instructions on slots while tracking each slot's labels.
struct Builder {
  const einsum::Network& net;
  EinsumProgram& prog;
  std::vector<LabelList> labels;  // per slot

  std::int32_t fresh(LabelList ls) {
    labels.push_back(std::move(ls));
    return prog.num_slots++;
  }
  std::int32_t emit(EinsumInstr::Op op, std::int32_t a, std::int32_t b, Dims dims, LabelList out) {
    EinsumInstr in;
    in.op = op;
    in.a = a;
    in.b = b;
    in.dims = std::move(dims);
    in.out = fresh(std::move(out));
    prog.instrs.push_back(std::move(in));
    return prog.instrs.back().out;
  }
  std::int32_t permute_to(std::int32_t slot, const LabelList& order) {
    const LabelList& cur = labels[static_cast<std::size_t>(slot)];
    if (cur == order) return slot;
    Dims perm;
    for (Label l : order) perm.push_back(index_of(cur, l));
    return emit(EinsumInstr::Op::permute, slot, -1, std::move(perm), order);
  }
  // Sums the axes of `slot` whose labels `drop` selects.
  template <class Pred>
  std::int32_t sum_where(std::int32_t slot, Pred drop) {
    const LabelList cur = labels[static_cast<std::size_t>(slot)];
    Dims axes;
    LabelList kept;
    for (std::size_t a = 0; a < cur.size(); ++a) {
      if (drop(cur[a]))
        axes.push_back(static_cast<std::int64_t>(a));
      else
        kept.push_back(cur[a]);
    }
    if (axes.empty()) return slot;
    return emit(EinsumInstr::Op::sum, slot, -1, std::move(axes), std::move(kept));
  }
  // Steps (1) and (2) of Note [Einsum lowering] for operand k.
  std::int32_t squeeze_and_diagonals(std::int32_t slot, const einsum::Shape& shape) {
    LabelList cur = labels[static_cast<std::size_t>(slot)];
    Dims kept_shape;
    LabelList kept;
    for (std::size_t a = 0; a < cur.size(); ++a) {
      if (shape[a] == 1 && net.size[static_cast<std::size_t>(cur[a])] != 1) continue;
      kept.push_back(cur[a]);
      kept_shape.push_back(shape[a]);
    }
    if (kept.size() != cur.size())
      slot = emit(EinsumInstr::Op::reshape, slot, -1, std::move(kept_shape), kept);
    for (;;) {
      const LabelList now = labels[static_cast<std::size_t>(slot)];
      std::size_t p = 0, q = 0;
      for (std::size_t j = 1; j < now.size() && !q; ++j)
        for (std::size_t i = 0; i < j; ++i)
          if (now[i] == now[j]) {
            p = i;
            q = j;
            break;
          }
      if (!q) return slot;
      LabelList order;
      Dims perm;
      for (std::size_t a = 0; a < now.size(); ++a)
        if (a != p && a != q) {
          order.push_back(now[a]);
          perm.push_back(static_cast<std::int64_t>(a));
        }
      LabelList diag_labels = order;
      diag_labels.push_back(now[p]);
      perm.push_back(static_cast<std::int64_t>(p));
      perm.push_back(static_cast<std::int64_t>(q));
      bool identity = true;
      for (std::size_t a = 0; a < perm.size(); ++a)
        identity = identity && perm[a] == static_cast<std::int64_t>(a);
      if (!identity) {
        LabelList permuted = order;
        permuted.push_back(now[p]);
        permuted.push_back(now[q]);
        slot = emit(EinsumInstr::Op::permute, slot, -1, std::move(perm), std::move(permuted));
      }
      slot = emit(EinsumInstr::Op::diag, slot, -1, {}, std::move(diag_labels));
    }
  }
};

}  // namespace

EinsumProgram lower_einsum(const einsum::Network& net, std::span<const einsum::Shape> shapes,
                           std::span<const DType> dtypes, const EinsumOptions& options) {
  EinsumProgram prog;
  const std::size_t n = net.operands.size();
  if (n == 0)
    throw Error(ErrorKind::InvalidArgument, "einsum: expected at least one operand, got none");
  for (std::size_t k = 0; k < n; ++k) {
    prog.shapes.emplace_back(shapes[k].begin(), shapes[k].end());
    prog.dtypes.push_back(dtypes[k]);
  }
  Builder b{net, prog, {}};
  std::vector<std::int32_t> slot(n);
  for (std::size_t k = 0; k < n; ++k) slot[k] = b.fresh(net.operands[k]);
  for (std::size_t k = 0; k < n; ++k) slot[k] = b.squeeze_and_diagonals(slot[k], shapes[k]);
  // (3) labels carried by one operand only and not by the output.
  SmallVector<std::int32_t, 16> occurs(static_cast<std::size_t>(net.num_labels), 0);
  for (std::size_t k = 0; k < n; ++k)
    for (Label l : b.labels[static_cast<std::size_t>(slot[k])])
      ++occurs[static_cast<std::size_t>(l)];
  for (Label l : net.output) ++occurs[static_cast<std::size_t>(l)];
  for (std::size_t k = 0; k < n; ++k)
    slot[k] =
        b.sum_where(slot[k], [&](Label l) { return occurs[static_cast<std::size_t>(l)] == 1; });

  einsum::PathProblem problem;
  for (std::size_t k = 0; k < n; ++k)
    problem.operands.push_back(b.labels[static_cast<std::size_t>(slot[k])]);
  problem.output = net.output;
  problem.size = net.size;
  einsum::RawPath raw = einsum::find_path(problem, options);

  std::vector<std::int32_t> slot_of_id(slot.begin(), slot.end());
  for (const einsum::RawStep& s : raw.steps) {
    std::int32_t x = slot_of_id[static_cast<std::size_t>(s.lhs)];
    std::int32_t y = slot_of_id[static_cast<std::size_t>(s.rhs)];
    auto needed = [&](Label l) { return contains(s.result, l); };
    const LabelList yl0 = b.labels[static_cast<std::size_t>(y)];
    const LabelList xl0 = b.labels[static_cast<std::size_t>(x)];
    x = b.sum_where(x, [&](Label l) { return !needed(l) && !contains(yl0, l); });
    y = b.sum_where(y, [&](Label l) { return !needed(l) && !contains(xl0, l); });
    const LabelList xl = b.labels[static_cast<std::size_t>(x)];
    const LabelList yl = b.labels[static_cast<std::size_t>(y)];
    EinsumInstr in;
    in.op = EinsumInstr::Op::dot;
    in.a = x;
    in.b = y;
    for (std::size_t i = 0; i < xl.size(); ++i) {
      if (!contains(yl, xl[i])) continue;
      const std::int64_t j = index_of(yl, xl[i]);
      (needed(xl[i]) ? in.dot.lhs_batch : in.dot.lhs_contract)
          .push_back(static_cast<std::int64_t>(i));
      (needed(xl[i]) ? in.dot.rhs_batch : in.dot.rhs_contract).push_back(j);
    }
    in.out = b.fresh(s.result);
    prog.instrs.push_back(std::move(in));
    slot_of_id.push_back(prog.instrs.back().out);
  }
  prog.result = b.permute_to(slot_of_id.back(), net.output);

  // The inspectable path.
  EinsumPath& path = prog.path;
  path.strategy = raw.strategy;
  for (std::size_t k = 0; k < n; ++k) {
    if (k) path.subscripts += ",";
    path.subscripts += einsum::format_term(net, net.operands[k]);
  }
  path.subscripts += "->" + einsum::format_term(net, net.output);
  std::vector<LabelList> id_labels(problem.operands.begin(), problem.operands.end());
  for (const einsum::RawStep& s : raw.steps) {
    EinsumStep step;
    step.lhs = s.lhs;
    step.rhs = s.rhs;
    step.subscripts = einsum::format_term(net, id_labels[static_cast<std::size_t>(s.lhs)]) + "," +
                      einsum::format_term(net, id_labels[static_cast<std::size_t>(s.rhs)]) + "->" +
                      einsum::format_term(net, s.result);
    for (Label l : s.result) step.shape.push_back(net.size[static_cast<std::size_t>(l)]);
    step.flops = s.flops;
    id_labels.push_back(s.result);
    path.steps.push_back(std::move(step));
  }
  path.flops = raw.flops;
  path.largest_intermediate = raw.largest;
  path.total_write = raw.write;
  path.search_seconds = raw.seconds;
  path.trials = raw.trials;
  const bool searched = raw.strategy == EinsumStrategy::greedy ||
                        raw.strategy == EinsumStrategy::random_greedy ||
                        raw.strategy == EinsumStrategy::hyper;
  path.objective = searched ? options.objective : PathObjective::flops;
  double volume = 1;
  bool summed = false;
  for (Label l = 0; l < net.num_labels; ++l) {
    volume *= static_cast<double>(net.size[static_cast<std::size_t>(l)]);
    summed = summed || !contains(net.output, l);
  }
  path.naive_flops =
      volume * static_cast<double>(std::max<std::size_t>(1, n - 1 + (summed ? 1 : 0)));
  prog.problem = std::move(problem);

  for (Label l : net.output) prog.output_shape.push_back(net.size[static_cast<std::size_t>(l)]);
  prog.output_dtype = dtypes[0];
  for (DType d : dtypes) prog.output_dtype = promote(prog.output_dtype, d);
  return prog;
}

Tensor EinsumProgram::run(std::span<const Tensor> operands) const {
  SmallVector<Tensor, 8> slots(static_cast<std::size_t>(num_slots));
  // Mixed dtypes: every operand in the result's dtype first (NumPy's rule), so no intermediate
  // runs in a narrower dtype than the result and the value does not depend on the path (f32 x f32
  // first, then c128, gave a c128 result with f32 rounding).
  for (std::size_t k = 0; k < operands.size(); ++k)
    slots[k] = operands[k].dtype() == output_dtype ? operands[k] : cast(operands[k], output_dtype);
  for (const EinsumInstr& in : instrs) {
    Tensor x = std::move(slots[static_cast<std::size_t>(in.a)]);
    Tensor& out = slots[static_cast<std::size_t>(in.out)];
    switch (in.op) {
      case EinsumInstr::Op::reshape:
        out = reshape(x, in.dims);
        break;
      case EinsumInstr::Op::permute:
        out = permute(x, in.dims);
        break;
      case EinsumInstr::Op::diag:
        out = diagonal(x, 0);
        break;
      case EinsumInstr::Op::sum:
        out = sum(x, in.dims);
        break;
      case EinsumInstr::Op::dot:
        out = dot_general(x, slots[static_cast<std::size_t>(in.b)], in.dot);
        slots[static_cast<std::size_t>(in.b)] = Tensor();
        break;
    }
  }
  return std::move(slots[static_cast<std::size_t>(result)]);
}

}  // namespace tenferro::detail
