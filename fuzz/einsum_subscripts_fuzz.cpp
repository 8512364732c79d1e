// libFuzzer target: the einsum subscript parser, shape binding and path search.
//
// Input: byte 0 seeds the operand shapes, the rest is the spec. Every input must either throw
// tenferro::Error or produce a network and a path that satisfy their invariants; anything else
// (a crash, a sanitizer report, another exception, a broken invariant) is a finding.
// Links only src/einsum/subscripts.cpp, src/einsum/path.cpp and src/core/error.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "einsum/path.hpp"
#include "einsum/subscripts.hpp"

namespace {

using namespace tenferro::detail::einsum;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

// Shapes for the parsed terms: label sizes 1..3 from the seed, an ellipsis width of 0..2, and
// (for some seeds) one perturbed dimension so that the mismatch paths run too.
std::vector<Shape> shapes_for(const Subscripts& s, std::uint8_t seed) {
  std::vector<Shape> shapes;
  const int width = seed % 3;
  for (std::size_t k = 0; k < s.inputs.size(); ++k) {
    Shape shape;
    for (std::int64_t raw : s.inputs[k].labels) {
      if (raw == kEllipsis) {
        for (int e = 0; e < width; ++e) shape.push_back(1 + (seed + e + static_cast<int>(k)) % 2);
      } else {
        shape.push_back(1 + (raw * 7 + seed) % 3);
      }
    }
    shapes.push_back(shape);
  }
  if (seed & 0x80 && !shapes.empty() && !shapes.back().empty()) shapes.back()[0] += 1;
  return shapes;
}

void check_network(const Network& net, std::span<const Shape> shapes) {
  require(net.operands.size() == shapes.size());
  require(net.size.size() == static_cast<std::size_t>(net.num_labels));
  require(net.names.size() == static_cast<std::size_t>(net.num_labels));
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    require(net.operands[k].size() == shapes[k].size());
    for (std::size_t a = 0; a < shapes[k].size(); ++a) {
      const Label l = net.operands[k][a];
      require(l >= 0 && l < net.num_labels);
      const std::int64_t sz = net.size[static_cast<std::size_t>(l)];
      require(shapes[k][a] == sz || shapes[k][a] == 1);
    }
  }
  for (std::size_t j = 0; j < net.output.size(); ++j) {
    require(net.output[j] >= 0 && net.output[j] < net.num_labels);
    for (std::size_t i = 0; i < j; ++i) require(net.output[i] != net.output[j]);
  }
}

void check_path(const Network& net) {
  if (net.operands.empty() || net.operands.size() > 24) return;
  PathProblem p;
  for (const LabelList& ls : net.operands) {
    LabelList unique;
    for (Label l : ls)
      if (std::find(unique.begin(), unique.end(), l) == unique.end()) unique.push_back(l);
    p.operands.push_back(unique);
  }
  p.output = net.output;
  p.size = net.size;
  const RawPath r = find_path(p, tenferro::EinsumOptions{});
  const int n = static_cast<int>(p.operands.size());
  require(static_cast<int>(r.steps.size()) == n - 1);
  std::vector<int> used(static_cast<std::size_t>(2 * n), 0);
  for (std::size_t k = 0; k < r.steps.size(); ++k) {
    const RawStep& s = r.steps[k];
    require(s.lhs >= 0 && s.lhs < n + static_cast<int>(k) && s.rhs >= 0 &&
            s.rhs < n + static_cast<int>(k) && s.lhs != s.rhs);
    require(++used[static_cast<std::size_t>(s.lhs)] == 1 &&
            ++used[static_cast<std::size_t>(s.rhs)] == 1);
    require(s.flops >= 0 && s.size >= 0);
  }
  if (!r.steps.empty()) {
    // The last result carries exactly the output labels.
    const LabelList& last = r.steps.back().result;
    require(last.size() == p.output.size());
    for (Label l : p.output) require(std::find(last.begin(), last.end(), l) != last.end());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view spec(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const Subscripts s = parse_subscripts(spec);
    const std::vector<Shape> shapes = shapes_for(s, data[0]);
    const Network net = bind_shapes(s, shapes);
    check_network(net, shapes);
    check_path(net);
    for (const LabelList& ls : net.operands) (void)format_term(net, ls);
  } catch (const tenferro::Error& e) {
    require(!e.message().empty());
  }
  return 0;
}
