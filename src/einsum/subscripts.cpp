// The einsum subscript parser and shape binding (see subscripts.hpp). No tensor dependencies.
#include "einsum/subscripts.hpp"

#include <algorithm>
#include <limits>

namespace tenferro::detail::einsum {
namespace {

constexpr std::int64_t kLetters = 52;

bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
std::int64_t letter_id(char c) { return c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }
char letter_of(std::int64_t id) { return static_cast<char>(id < 26 ? 'A' + id : 'a' + (id - 26)); }

// The spec quoted for a message: non-printable bytes escaped, long specs shortened.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  const std::size_t limit = 160;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (text.size() > limit) out += "...";
  return out + "\"";
}

std::string char_name(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  return "byte " + std::to_string(u);
}

[[noreturn]] void parse_error(std::string_view spec, std::size_t pos, const std::string& what) {
  throw Error(ErrorKind::InvalidArgument, "einsum: " + what + " at position " +
                                              std::to_string(pos) + " of " + quoted(spec) +
                                              "; expected terms of letters a-zA-Z and at most "
                                              "one '...' each, separated by ',', then optionally "
                                              "'->' and the output term");
}

// Where label j of a term is, for messages.
std::string where(const Subscripts& s, const Term& t, std::size_t j, const char* what) {
  if (!s.integer_form) {
    const std::int32_t p = j < t.pos.size() ? t.pos[j] : t.start;
    return "at position " + std::to_string(p) + " of " + quoted(s.text);
  }
  return std::string("in ") + what + " entry " + std::to_string(j);
}

std::string raw_name(const Subscripts& s, std::int64_t raw) {
  if (raw == kEllipsis) return "'...'";
  if (!s.integer_form) return std::string("'") + letter_of(raw) + "'";
  return std::to_string(raw);
}

// Output checks shared by both forms: no repeats, every label used by some input.
void check_output(const Subscripts& s) {
  const Term& o = s.output;
  for (std::size_t j = 0; j < o.labels.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i)
      if (o.labels[i] == o.labels[j])
        throw Error(ErrorKind::InvalidArgument, "einsum: output label " + raw_name(s, o.labels[j]) +
                                                    " " + where(s, o, j, "output") + " repeats " +
                                                    where(s, o, i, "output") +
                                                    "; expected each output label at most once");
    if (o.labels[j] == kEllipsis) continue;
    bool found = false;
    for (const Term& t : s.inputs)
      found = found || std::find(t.labels.begin(), t.labels.end(), o.labels[j]) != t.labels.end();
    if (!found)
      throw Error(
          ErrorKind::InvalidArgument,
          "einsum: output label " + raw_name(s, o.labels[j]) + " " + where(s, o, j, "output") +
              " does not appear in any input; expected output labels taken from the inputs");
  }
}

}  // namespace

Subscripts parse_subscripts(std::string_view spec) {
  Subscripts s;
  s.text = std::string(spec);
  Term cur;
  bool in_output = false;
  const std::size_t n = spec.size();
  std::size_t i = 0;
  while (i < n) {
    const char c = spec[i];
    if (c == ' ') {
      ++i;
    } else if (is_letter(c)) {
      cur.labels.push_back(letter_id(c));
      cur.pos.push_back(static_cast<std::int32_t>(i));
      ++i;
    } else if (c == '.') {
      if (spec.substr(i, 3) != "...") parse_error(spec, i, "a '.' that does not start '...'");
      if (std::find(cur.labels.begin(), cur.labels.end(), kEllipsis) != cur.labels.end())
        parse_error(spec, i, "a second '...' in one term");
      cur.labels.push_back(kEllipsis);
      cur.pos.push_back(static_cast<std::int32_t>(i));
      i += 3;
    } else if (c == ',') {
      if (in_output) parse_error(spec, i, "a ',' in the output term");
      s.inputs.push_back(std::move(cur));
      cur = Term{};
      cur.start = static_cast<std::int32_t>(i + 1);
      ++i;
    } else if (c == '-') {
      if (i + 1 >= n || spec[i + 1] != '>') parse_error(spec, i, "a '-' not followed by '>'");
      if (in_output) parse_error(spec, i, "a second '->'");
      s.inputs.push_back(std::move(cur));
      cur = Term{};
      cur.start = static_cast<std::int32_t>(i + 2);
      in_output = true;
      i += 2;
    } else if (c == '>') {
      parse_error(spec, i, "a '>' without '-'");
    } else {
      parse_error(spec, i, "invalid character " + char_name(c));
    }
  }
  if (in_output) {
    s.output = std::move(cur);
    s.explicit_output = true;
    check_output(s);
  } else {
    s.inputs.push_back(std::move(cur));
  }
  return s;
}

Subscripts integer_subscripts(std::span<const std::vector<std::int64_t>> inputs,
                              const std::vector<std::int64_t>* output) {
  Subscripts s;
  s.integer_form = true;
  auto make = [&](const std::vector<std::int64_t>& labels, std::int32_t index, const char* what) {
    Term t;
    t.start = index;
    for (std::size_t j = 0; j < labels.size(); ++j) {
      if (labels[j] < 0)
        throw Error(ErrorKind::InvalidArgument,
                    "einsum: label " + std::to_string(labels[j]) + " in " + what + " " +
                        (index >= 0 ? std::to_string(index) + " " : std::string()) + "entry " +
                        std::to_string(j) + " is negative; expected integer labels >= 0");
      t.labels.push_back(labels[j]);
    }
    return t;
  };
  for (std::size_t k = 0; k < inputs.size(); ++k)
    s.inputs.push_back(make(inputs[k], static_cast<std::int32_t>(k), "operand"));
  if (output) {
    s.output = make(*output, -1, "the output");
    s.explicit_output = true;
    check_output(s);
  }
  return s;
}

namespace {
// "[2, 3]" (dims_to_string lives in the core library, which the einsum fuzzer does not link).
std::string shape_text(std::span<const std::int64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}
}  // namespace

Network bind_shapes(const Subscripts& s, std::span<const Shape> shapes) {
  const std::size_t n = s.inputs.size();
  if (shapes.size() != n)
    throw Error(ErrorKind::InvalidArgument,
                "einsum: " +
                    (s.text.empty() ? std::string("the label lists name ")
                                    : "the spec " + quoted(s.text) + " names ") +
                    std::to_string(n) + " operand(s) but " + std::to_string(shapes.size()) +
                    " were given; expected one operand per term");
  // Every shape must be a tensor shape: dimensions >= 0, the non-zero ones multiplying to at
  // most INT64_MAX (as Tensor checks; einsum_path and prepare_einsum take bare shapes).
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t numel = 1;
    for (std::size_t a = 0; a < shapes[k].size(); ++a) {
      const std::int64_t d = shapes[k][a];
      // The integer form names the label of a negative axis (the spec form's '...' may shift it).
      const bool named = s.integer_form && a < s.inputs[k].labels.size();
      const std::string where =
          "; axis " + std::to_string(a) +
          (named ? " (label " + std::to_string(s.inputs[k].labels[a]) + ")" : std::string()) +
          " has size " + std::to_string(d) + ", expected every dimension >= 0";
      if (d < 0 || (d > 0 && __builtin_mul_overflow(numel, d, &numel)))
        throw Error(ErrorKind::InvalidArgument,
                    "einsum: operand " + std::to_string(k) + " has shape " + shape_text(shapes[k]) +
                        (d < 0 ? where
                               : ", more elements than fit in int64; expected at most " +
                                     std::to_string(std::numeric_limits<std::int64_t>::max())));
    }
  }
  // Ranks and the ellipsis width of each operand.
  SmallVector<std::int64_t, 8> ell(n, 0);
  std::int64_t width = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Term& t = s.inputs[k];
    const auto rank = static_cast<std::int64_t>(shapes[k].size());
    const bool has_ell = std::find(t.labels.begin(), t.labels.end(), kEllipsis) != t.labels.end();
    const auto named = static_cast<std::int64_t>(t.labels.size()) - (has_ell ? 1 : 0);
    if (has_ell ? rank < named : rank != named)
      throw Error(ErrorKind::InvalidArgument,
                  "einsum: operand " + std::to_string(k) + " has rank " + std::to_string(rank) +
                      " but its term " + where(s, t, t.labels.size(), "operand") + " names " +
                      std::to_string(named) + " dimension(s)" +
                      (has_ell ? " plus '...'; expected rank >= " : "; expected rank ") +
                      std::to_string(named));
    ell[k] = has_ell ? rank - named : 0;
    width = std::max(width, ell[k]);
  }
  // Dense ids: named labels in raw order, then the ellipsis labels.
  std::vector<std::int64_t> raws;
  for (const Term& t : s.inputs)
    for (std::int64_t r : t.labels)
      if (r != kEllipsis) raws.push_back(r);
  std::sort(raws.begin(), raws.end());
  raws.erase(std::unique(raws.begin(), raws.end()), raws.end());
  const auto named = static_cast<Label>(raws.size());
  auto dense = [&](std::int64_t raw) {
    return static_cast<Label>(std::lower_bound(raws.begin(), raws.end(), raw) - raws.begin());
  };
  Network net;
  net.num_labels = named + static_cast<Label>(width);
  net.size.assign(static_cast<std::size_t>(net.num_labels), -1);
  SmallVector<std::int32_t, 16> first_op(static_cast<std::size_t>(net.num_labels), -1);
  SmallVector<std::int32_t, 16> first_j(static_cast<std::size_t>(net.num_labels), -1);
  SmallVector<std::int32_t, 16> count(static_cast<std::size_t>(net.num_labels), 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Term& t = s.inputs[k];
    LabelList labels;
    std::size_t axis = 0;
    for (std::size_t j = 0; j < t.labels.size(); ++j) {
      const bool is_ell = t.labels[j] == kEllipsis;
      const std::int64_t span = is_ell ? ell[k] : 1;
      for (std::int64_t e = 0; e < span; ++e, ++axis) {
        const Label id =
            is_ell ? named + static_cast<Label>(width - ell[k] + e) : dense(t.labels[j]);
        const std::int64_t sz = shapes[k][axis];
        auto& have = net.size[static_cast<std::size_t>(id)];
        const auto u = static_cast<std::size_t>(id);
        const bool ok = have < 0 || have == sz || (is_ell && (have == 1 || sz == 1));
        if (!ok) {
          const Term& ft = s.inputs[static_cast<std::size_t>(first_op[u])];
          throw Error(ErrorKind::ShapeMismatch,
                      "einsum: " +
                          (is_ell ? std::string("broadcast dimension of '...'")
                                  : "label " + raw_name(s, t.labels[j])) +
                          " has size " + std::to_string(sz) + " in operand " + std::to_string(k) +
                          " (axis " + std::to_string(axis) + ", " + where(s, t, j, "operand") +
                          ") but size " + std::to_string(have) + " in operand " +
                          std::to_string(first_op[u]) + " (" +
                          where(s, ft, static_cast<std::size_t>(first_j[u]), "operand") +
                          (is_ell ? "); expected equal sizes or 1" : "); expected equal sizes"));
        }
        if (have < 0 || (have == 1 && sz != 1)) {
          first_op[u] = static_cast<std::int32_t>(k);
          first_j[u] = static_cast<std::int32_t>(j);
          have = sz;
        }
        ++count[u];
        labels.push_back(id);
      }
    }
    net.operands.push_back(std::move(labels));
  }
  if (s.explicit_output) {
    for (std::int64_t r : s.output.labels) {
      if (r != kEllipsis) {
        net.output.push_back(dense(r));
      } else {
        for (std::int64_t e = 0; e < width; ++e)
          net.output.push_back(named + static_cast<Label>(e));
      }
    }
  } else {
    for (std::int64_t e = 0; e < width; ++e) net.output.push_back(named + static_cast<Label>(e));
    for (Label id = 0; id < named; ++id)
      if (count[static_cast<std::size_t>(id)] == 1) net.output.push_back(id);
  }
  // Names: letters keep theirs; the others take unused letters, then "{k}".
  std::vector<bool> used(kLetters, false);
  const bool letters = !s.integer_form;
  if (letters)
    for (std::int64_t r : raws) used[static_cast<std::size_t>(r)] = true;
  std::int64_t next = 26;  // lowercase first
  auto fresh = [&](Label id) {
    for (std::int64_t tries = 0; tries < kLetters; ++tries, next = (next + 1) % kLetters)
      if (!used[static_cast<std::size_t>(next)]) {
        used[static_cast<std::size_t>(next)] = true;
        return std::string(1, letter_of(next));
      }
    return "{" + std::to_string(id) + "}";
  };
  for (Label id = 0; id < net.num_labels; ++id)
    net.names.push_back(letters && id < named
                            ? std::string(1, letter_of(raws[static_cast<std::size_t>(id)]))
                            : fresh(id));
  return net;
}

std::string format_term(const Network& net, std::span<const Label> labels) {
  std::string out;
  for (Label l : labels) out += net.names[static_cast<std::size_t>(l)];
  return out;
}

}  // namespace tenferro::detail::einsum
