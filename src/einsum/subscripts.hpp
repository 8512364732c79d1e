// Einsum subscripts: the parser and the binding of labels to operand shapes.
//
// This header and subscripts.cpp depend only on error.hpp and small_vector.hpp (no tensors, no
// TBB, no BLAS) so that the libFuzzer target in fuzz/ links them alone.
//
// Note [Einsum labels]: after binding, every label is a dense id in [0, num_labels). Letters keep
// the order of their raw ids first (raw ids of letters follow ASCII: 'A'..'Z' -> 0..25,
// 'a'..'z' -> 26..51, so the implicit output is in NumPy's "alphabetical" order), then the
// broadcast (ellipsis) dimensions, right-aligned as in NumPy: an operand whose ellipsis covers e
// dimensions uses the last e of the E ellipsis labels (E = the largest e). An ellipsis dimension of
// size 1 broadcasts against any size; all other labels must agree exactly in size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/error.hpp"
#include "tenferro/small_vector.hpp"

namespace tenferro::detail::einsum {

using Label = std::int32_t;
using Shape = SmallVector<std::int64_t, 6>;
using LabelList = SmallVector<Label, 8>;

/// Raw label of a parsed term: a letter id (0..51, ASCII order), an integer label (>= 0), or
/// kEllipsis.
inline constexpr std::int64_t kEllipsis = -1;

/// One operand's (or the output's) subscripts as written.
struct Term {
  SmallVector<std::int64_t, 8> labels;
  /// Offset in the spec string of each label (the '.' that starts an ellipsis); empty for the
  /// integer-label form.
  SmallVector<std::int32_t, 8> pos;
  /// Offset where the term starts (or the operand index for the integer form).
  std::int32_t start = 0;
};

/// A parsed spec. `text` is kept for error messages (empty for the integer-label form).
struct Subscripts {
  std::string text;
  /// True for the integer-label form (messages name operand entries instead of positions).
  bool integer_form = false;
  std::vector<Term> inputs;
  bool explicit_output = false;
  Term output;
};

/// Parses the NumPy grammar: terms of letters a-zA-Z and at most one "..." each, separated by
/// ',', optionally followed by "->" and the output term; spaces are ignored. Throws
/// Error{InvalidArgument} naming the offending position: bad characters, a lone '.', two
/// ellipses in a term, a second "->", a '-' without '>', a repeated output label, an output label
/// that no input uses.
Subscripts parse_subscripts(std::string_view spec);

/// The integer-label form: labels must be >= 0 (InvalidArgument otherwise). `output` null means
/// implicit output (labels that appear exactly once, in increasing order).
Subscripts integer_subscripts(std::span<const std::vector<std::int64_t>> inputs,
                              const std::vector<std::int64_t>* output);

/// A spec bound to shapes (Note [Einsum labels]).
struct Network {
  std::int32_t num_labels = 0;
  /// Size of each label (the broadcast size for ellipsis labels).
  SmallVector<std::int64_t, 16> size;
  /// Printable name of each label: its letter, or a generated name.
  std::vector<std::string> names;
  /// Labels of each operand axis (repeats allowed: diagonals).
  std::vector<LabelList> operands;
  /// Output labels (no repeats).
  LabelList output;
};

/// Binds `s` to operand shapes: checks the operand count, ranks (with ellipsis), sizes of
/// repeated labels, and computes the implicit output when there is no "->". Throws
/// InvalidArgument (count, rank) or ShapeMismatch (sizes), naming the position in the spec.
Network bind_shapes(const Subscripts& s, std::span<const Shape> shapes);

/// "ab,bc->ac" for a list of label lists, using net.names.
std::string format_term(const Network& net, std::span<const Label> labels);

}  // namespace tenferro::detail::einsum
