// einsum over BlockTensors: subscripts, a pairwise order chosen with block-aware costs, and the
// pairwise tensordots (tenferro/symmetric.hpp).
#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "symmetric/internal.hpp"

namespace tenferro::symmetric {
namespace {

constexpr const char* kOp = "symmetric::einsum";

struct Spec {
  std::vector<std::string> inputs;
  std::string output;
};

Spec parse(std::string_view spec, std::span<const BlockTensor> ops) {
  Spec s;
  std::string text;
  for (char c : spec)
    if (c != ' ') text += c;
  const auto arrow = text.find("->");
  const std::string lhs = arrow == std::string::npos ? text : text.substr(0, arrow);
  std::string cur;
  for (char c : lhs) {
    if (c == ',') {
      s.inputs.push_back(cur);
      cur.clear();
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      cur += c;
    } else {
      throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": unexpected character '" + c +
                                                  "' in \"" + std::string(spec) + "\"");
    }
  }
  s.inputs.push_back(cur);
  if (s.inputs.size() != ops.size())
    throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": \"" + std::string(spec) +
                                                "\" names " + std::to_string(s.inputs.size()) +
                                                " operands, " + std::to_string(ops.size()) +
                                                " given");
  std::map<char, int> count;
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i].size() != ops[i].rank())
      throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": operand " + std::to_string(i) +
                                                  " has rank " + std::to_string(ops[i].rank()) +
                                                  " but subscripts \"" + s.inputs[i] + "\"");
    for (std::size_t j = 0; j < s.inputs[i].size(); ++j) {
      const char c = s.inputs[i][j];
      if (s.inputs[i].find(c) != j)
        throw Error(ErrorKind::Unsupported, std::string(kOp) + ": label '" + c +
                                                "' repeats within operand " + std::to_string(i) +
                                                " (use symmetric::trace for a trace)");
      ++count[c];
    }
  }
  if (arrow != std::string::npos) {
    s.output = text.substr(arrow + 2);
  } else {
    for (auto& [c, n] : count)
      if (n == 1) s.output += c;
  }
  for (auto& [c, n] : count) {
    const bool out = s.output.find(c) != std::string::npos;
    if (n > 2)
      throw Error(ErrorKind::Unsupported, std::string(kOp) + ": label '" + c + "' appears " +
                                              std::to_string(n) +
                                              " times (at most twice: one contracted leg pair)");
    if (n == 2 && out)
      throw Error(ErrorKind::Unsupported,
                  std::string(kOp) + ": label '" + c +
                      "' is contracted and also in the output (batch labels are not supported)");
    if (n == 1 && !out)
      throw Error(ErrorKind::Unsupported,
                  std::string(kOp) + ": label '" + c +
                      "' appears once and not in the output (summing a charged leg is not "
                      "supported)");
  }
  for (char c : s.output)
    if (!count.count(c))
      throw Error(ErrorKind::InvalidArgument,
                  std::string(kOp) + ": output label '" + c + "' is in no operand");
  return s;
}

// A structural stand-in for an operand or intermediate: legs, flux, labels (no blocks).
struct Node {
  BlockTensor shape;  // legs and flux only
  std::string labels;
};

struct Pairing {
  Dims axes_a, axes_b;
  std::string labels;  // result labels
};

Pairing pairing(const std::string& la, const std::string& lb) {
  Pairing p;
  for (std::size_t i = 0; i < la.size(); ++i) {
    const auto j = lb.find(la[i]);
    if (j != std::string::npos) {
      p.axes_a.push_back(static_cast<std::int64_t>(i));
      p.axes_b.push_back(static_cast<std::int64_t>(j));
    } else {
      p.labels += la[i];
    }
  }
  for (char c : lb)
    if (la.find(c) == std::string::npos) p.labels += c;
  return p;
}

Node contract_shape(const Node& a, const Node& b, const Pairing& p) {
  std::vector<Leg> legs;
  for (char c : p.labels) {
    const auto i = a.labels.find(c);
    legs.push_back(i != std::string::npos ? a.shape.leg(i) : b.shape.leg(b.labels.find(c)));
  }
  const Group& g = a.shape.rank() > 0 ? a.shape.group() : b.shape.group();
  return {detail::make(g, std::move(legs), g.fuse(a.shape.flux(), b.shape.flux()), DType::f64, {}),
          p.labels};
}

double dense_cost(const Node& a, const Node& b) {
  double c = 1;
  for (std::size_t i = 0; i < a.labels.size(); ++i) c *= static_cast<double>(a.shape.leg(i).dim());
  for (std::size_t j = 0; j < b.labels.size(); ++j)
    if (a.labels.find(b.labels[j]) == std::string::npos)
      c *= static_cast<double>(b.shape.leg(j).dim());
  return c;
}

struct Found {
  BlockPath path;
  Node result;
};

std::vector<Node> leaves(const Spec& s, std::span<const BlockTensor> ops) {
  std::vector<Node> n;
  for (std::size_t i = 0; i < ops.size(); ++i)
    n.push_back({detail::make(ops[i].group(), ops[i].legs(), ops[i].flux(), ops[i].dtype(), {}),
                 s.inputs[i]});
  return n;
}

// Optimal order by dynamic programming over subsets (n <= 8).
BlockPath optimal(const std::vector<Node>& in) {
  const std::size_t n = in.size();
  const std::uint32_t full = (1u << n) - 1;
  struct Best {
    double cost = std::numeric_limits<double>::infinity();
    double dense = 0;
    std::uint32_t left = 0;
    Node node;
  };
  std::vector<Best> best(full + 1);
  for (std::size_t i = 0; i < n; ++i) {
    best[1u << i].cost = 0;
    best[1u << i].node = in[i];
  }
  for (std::uint32_t mask = 1; mask <= full; ++mask) {
    if (std::popcount(mask) < 2) continue;
    // Each split once: the left part holds the lowest set bit.
    const std::uint32_t low = mask & (~mask + 1);
    for (std::uint32_t sub = (mask - 1) & mask; sub > 0; sub = (sub - 1) & mask) {
      if (!(sub & low)) continue;
      const std::uint32_t rest = mask ^ sub;
      const Best& l = best[sub];
      const Best& r = best[rest];
      if (!std::isfinite(l.cost) || !std::isfinite(r.cost)) continue;
      const Pairing p = pairing(l.node.labels, r.node.labels);
      const double c =
          l.cost + r.cost + tensordot_cost(l.node.shape, r.node.shape, p.axes_a, p.axes_b);
      if (c < best[mask].cost) {
        best[mask].cost = c;
        best[mask].left = sub;
        best[mask].dense = l.dense + r.dense + dense_cost(l.node, r.node);
        best[mask].node = contract_shape(l.node, r.node, p);
      }
    }
  }
  // Emit SSA pairs by a post-order walk.
  BlockPath path;
  path.flops = best[full].cost;
  path.dense_flops = best[full].dense;
  int next = static_cast<int>(n);
  std::function<int(std::uint32_t)> emit = [&](std::uint32_t mask) -> int {
    if (std::popcount(mask) == 1) return std::countr_zero(mask);
    const int a = emit(best[mask].left);
    const int b = emit(mask ^ best[mask].left);
    path.pairs.push_back({a, b});
    return next++;
  };
  emit(full);
  return path;
}

// Greedy: repeatedly the pair of live nodes with the cheapest contraction, preferring pairs that
// share a label.
BlockPath greedy(std::vector<Node> nodes) {
  BlockPath path;
  std::vector<int> live(nodes.size());
  std::iota(live.begin(), live.end(), 0);
  while (live.size() > 1) {
    double best = std::numeric_limits<double>::infinity();
    bool best_shared = false;
    std::size_t bi = 0, bj = 1;
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        const Pairing p = pairing(nodes[live[i]].labels, nodes[live[j]].labels);
        const bool shared = !p.axes_a.empty();
        if (best_shared && !shared) continue;
        const double c =
            tensordot_cost(nodes[live[i]].shape, nodes[live[j]].shape, p.axes_a, p.axes_b);
        if ((shared && !best_shared) || c < best) {
          best = c;
          best_shared = shared;
          bi = i;
          bj = j;
        }
      }
    const Node& a = nodes[live[bi]];
    const Node& b = nodes[live[bj]];
    const Pairing p = pairing(a.labels, b.labels);
    path.flops += best;
    path.dense_flops += dense_cost(a, b);
    Node r = contract_shape(a, b, p);
    path.pairs.push_back({live[bi], live[bj]});
    nodes.push_back(std::move(r));
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bj));
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bi));
    live.push_back(static_cast<int>(nodes.size()) - 1);
  }
  return path;
}

BlockPath find_path(const Spec& s, std::span<const BlockTensor> ops) {
  const std::vector<Node> n = leaves(s, ops);
  if (n.size() <= 1) return {};
  return n.size() <= 8 ? optimal(n) : greedy(n);
}

}  // namespace

BlockPath einsum_path(std::string_view spec, std::span<const BlockTensor> operands) {
  return find_path(parse(spec, operands), operands);
}

BlockTensor einsum(std::string_view spec, std::span<const BlockTensor> operands) {
  if (operands.empty()) throw Error(ErrorKind::InvalidArgument, std::string(kOp) + ": no operands");
  const Spec s = parse(spec, operands);
  const BlockPath path = find_path(s, operands);
  // Mixed dtypes: every operand in the result's dtype first (as tenferro::einsum), so no pair is
  // contracted in a narrower dtype and the value does not depend on the path.
  DType dt = operands[0].dtype();
  for (const BlockTensor& t : operands) dt = promote(dt, t.dtype());
  std::vector<BlockTensor> values;
  for (const BlockTensor& t : operands) {
    if (t.dtype() == dt) {
      values.push_back(t);
      continue;
    }
    std::map<BlockKey, Tensor> blocks;
    for (const auto& [key, b] : t.blocks()) blocks.emplace(key, cast(b, dt));
    values.push_back(detail::make(t.group(), t.legs(), t.flux(), dt, std::move(blocks)));
  }
  std::vector<std::string> labels = s.inputs;
  for (const auto& [i, j] : path.pairs) {
    const Pairing p = pairing(labels[i], labels[j]);
    values.push_back(tensordot(values[i], values[j], p.axes_a, p.axes_b));
    labels.push_back(p.labels);
    values[i] = values[j] = BlockTensor();  // release intermediates early
  }
  const BlockTensor& last = values.back();
  const std::string& have = labels.back();
  Dims order;
  for (char c : s.output) order.push_back(static_cast<std::int64_t>(have.find(c)));
  return permute(last, order);
}

BlockTensor einsum(std::string_view spec, std::initializer_list<BlockTensor> operands) {
  return einsum(spec, std::span<const BlockTensor>(operands.begin(), operands.size()));
}

}  // namespace tenferro::symmetric
