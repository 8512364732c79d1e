// Standard tensor networks for the contraction-path benchmark (see networks.hpp).
#include "networks.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>

namespace bench::paths {
namespace {

using tenferro::EinsumLabels;

// SplitMix64: small, fast, and the same sequence everywhere.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (the modulo bias is below 2^-50 for the n used here).
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[static_cast<std::size_t>(below(static_cast<std::int64_t>(i)))]);
  }
};

// Builds a network label by label.
struct Builder {
  Network net;
  std::int64_t label(std::int64_t size) {
    net.size.push_back(size);
    return static_cast<std::int64_t>(net.size.size()) - 1;
  }
  void tensor(EinsumLabels labels) { net.inputs.push_back(std::move(labels)); }
};

// Google's Sycamore grid as Cirq writes it (cirq_google known_devices, _SYCAMORE_GRID): a letter
// at row r, column c is the qubit (r, c).
constexpr const char* kSycamoreGrid[] = {"-----AB---", "----ABCD--", "---ABCDEF-", "--ABCDEFGH",
                                         "-ABCDEFGHI", "ABCDEFGHI-", "-CDEFGHI--", "--EFGHI---",
                                         "---GHI----", "----I-----"};

// The couplers of one pattern of the "ABCDCDAB" sequence (Cirq's staggered GRID patterns in
// spirit): A/B vertical (r,c)-(r+1,c) with (r+c) even/odd, C/D horizontal (r,c)-(r,c+1) with
// (r+c) odd/even. Every qubit is in at most one coupler of a pattern. `has` says which sites are
// qubits.
std::vector<std::pair<std::pair<int, int>, std::pair<int, int>>> pattern_couplers(
    char pattern, int rows, int cols, const std::function<bool(int, int)>& has) {
  std::vector<std::pair<std::pair<int, int>, std::pair<int, int>>> out;
  const bool vertical = pattern == 'A' || pattern == 'B';
  const int parity = (pattern == 'A' || pattern == 'D') ? 0 : 1;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if ((r + c) % 2 != parity || !has(r, c)) continue;
      const int r2 = vertical ? r + 1 : r, c2 = vertical ? c : c + 1;
      if (r2 < rows && c2 < cols && has(r2, c2)) out.push_back({{r, c}, {r2, c2}});
    }
  return out;
}

constexpr const char* kPatterns = "ABCDCDAB";

}  // namespace

std::size_t Network::indices() const {
  std::set<std::int64_t> seen(output.begin(), output.end());
  for (const EinsumLabels& ls : inputs) seen.insert(ls.begin(), ls.end());
  return seen.size();
}

std::vector<tenferro::Dims> Network::shapes() const {
  std::vector<tenferro::Dims> out;
  out.reserve(inputs.size());
  for (const EinsumLabels& ls : inputs) {
    tenferro::Dims d;
    for (std::int64_t l : ls) d.push_back(size[static_cast<std::size_t>(l)]);
    out.push_back(d);
  }
  return out;
}

std::vector<std::pair<int, int>> sycamore_qubits() {
  std::vector<std::pair<int, int>> q;
  for (int r = 0; r < 10; ++r)
    for (int c = 0; kSycamoreGrid[r][c]; ++c)
      if (kSycamoreGrid[r][c] != '-') q.emplace_back(r, c);
  return q;
}

Network sycamore(int cycles, std::pair<int, int> drop) {
  if (cycles < 0) throw std::invalid_argument("sycamore: cycles must be >= 0");
  auto has = [&](int r, int c) {
    return r >= 0 && r < 10 && c >= 0 && c < 10 && kSycamoreGrid[r][c] != '-' &&
           std::make_pair(r, c) != drop;
  };
  if (drop.first >= 0 && (drop.first >= 10 || drop.second < 0 || drop.second >= 10 ||
                          kSycamoreGrid[drop.first][drop.second] == '-'))
    throw std::invalid_argument("sycamore: drop names no qubit of the grid");
  Builder b;
  std::map<std::pair<int, int>, std::int64_t> wire;  // the qubit's current label
  for (auto q : sycamore_qubits())
    if (has(q.first, q.second)) {
      wire[q] = b.label(2);
      b.tensor({wire[q]});  // |0>
    }
  auto single_layer = [&] {
    for (auto& [q, w] : wire) {
      const std::int64_t next = b.label(2);
      b.tensor({w, next});
      w = next;
    }
  };
  int couplers = 0;
  for (int k = 0; k < cycles; ++k) {
    single_layer();
    for (auto [p, q] : pattern_couplers(kPatterns[k % 8], 10, 10, has)) {
      const std::int64_t np = b.label(2), nq = b.label(2);
      b.tensor({wire[p], wire[q], np, nq});  // fSim
      wire[p] = np;
      wire[q] = nq;
    }
  }
  {
    std::set<std::pair<std::pair<int, int>, std::pair<int, int>>> all;
    for (char p : std::string("ABCD"))
      for (auto cp : pattern_couplers(p, 10, 10, has)) all.insert(cp);
    couplers = static_cast<int>(all.size());
  }
  single_layer();
  for (auto& [q, w] : wire) b.tensor({w});  // <x|
  b.net.params = std::to_string(wire.size()) + " qubits, " + std::to_string(couplers) +
                 " couplers, " + std::to_string(cycles) + " cycles, " +
                 (drop.first >= 0 ? "qubit (" + std::to_string(drop.first) + "," +
                                        std::to_string(drop.second) + ") dropped"
                                  : std::string("no qubit dropped"));
  return b.net;
}

Network simplify(Network net) {
  const std::size_t n = net.inputs.size();
  std::vector<std::vector<std::int64_t>>& t = net.inputs;
  std::vector<bool> alive(n, true);
  // users[l]: the live tensors that carry l (each once); in_output[l].
  std::vector<std::vector<std::size_t>> users(net.size.size());
  std::vector<bool> in_output(net.size.size(), false);
  for (std::size_t k = 0; k < n; ++k)
    for (std::int64_t l : t[k]) users[static_cast<std::size_t>(l)].push_back(k);
  for (std::int64_t l : net.output) in_output[static_cast<std::size_t>(l)] = true;
  std::size_t live = n;
  std::vector<std::size_t> work;
  for (std::size_t k = n; k-- > 0;)
    if (t[k].size() <= 2) work.push_back(k);
  while (!work.empty() && live > 1) {
    const std::size_t a = work.back();
    work.pop_back();
    if (!alive[a] || t[a].size() > 2) continue;
    // The neighbour sharing most labels (then the lowest position).
    std::map<std::size_t, int> shared;
    for (std::int64_t l : t[a])
      for (std::size_t u : users[static_cast<std::size_t>(l)])
        if (u != a) ++shared[u];
    std::size_t into = n;
    int most = 0;
    for (auto [u, s] : shared)
      if (s > most) {
        most = s;
        into = u;
      }
    if (into == n && t[a].empty())
      for (std::size_t u = 0; u < n && into == n; ++u)
        if (alive[u] && u != a) into = u;
    if (into == n) continue;  // only output (or no) labels: absorbing would add an outer product
    // Merge a into `into`: keep the labels that another live tensor or the output still carries.
    auto needed = [&](std::int64_t l) {
      if (in_output[static_cast<std::size_t>(l)]) return true;
      for (std::size_t u : users[static_cast<std::size_t>(l)])
        if (u != a && u != into) return true;
      return false;
    };
    std::vector<std::int64_t> merged;
    for (std::int64_t l : t[into])
      if (needed(l)) merged.push_back(l);
    for (std::int64_t l : t[a])
      if (needed(l) && std::find(merged.begin(), merged.end(), l) == merged.end())
        merged.push_back(l);
    for (std::int64_t l : t[a]) {
      auto& us = users[static_cast<std::size_t>(l)];
      us.erase(std::remove(us.begin(), us.end(), a), us.end());
    }
    for (std::int64_t l : t[into])
      if (std::find(merged.begin(), merged.end(), l) == merged.end()) {
        auto& us = users[static_cast<std::size_t>(l)];
        us.erase(std::remove(us.begin(), us.end(), into), us.end());
      }
    for (std::int64_t l : merged) {
      auto& us = users[static_cast<std::size_t>(l)];
      if (std::find(us.begin(), us.end(), into) == us.end()) us.push_back(into);
    }
    t[into] = std::move(merged);
    t[a].clear();
    alive[a] = false;
    --live;
    if (t[into].size() <= 2) work.push_back(into);
  }
  // Keep the live tensors in their order; renumber labels by first appearance.
  Network out;
  out.name = net.name;
  out.params = net.params + (net.params.empty() ? "" : ", ") + "simplified";
  out.slice_limit = net.slice_limit;
  std::map<std::int64_t, std::int64_t> relabel;
  auto map_label = [&](std::int64_t l) {
    auto [it, fresh] = relabel.emplace(l, static_cast<std::int64_t>(out.size.size()));
    if (fresh) out.size.push_back(net.size[static_cast<std::size_t>(l)]);
    return it->second;
  };
  for (std::size_t k = 0; k < n; ++k) {
    if (!alive[k]) continue;
    EinsumLabels ls;
    for (std::int64_t l : t[k]) ls.push_back(map_label(l));
    out.inputs.push_back(std::move(ls));
  }
  for (std::int64_t l : net.output) out.output.push_back(map_label(l));
  return out;
}

Network random_regular(int nodes, int degree, std::int64_t bond, std::uint64_t seed) {
  if (nodes < 2 || degree < 1 || degree >= nodes || (nodes * degree) % 2 != 0 || bond < 1)
    throw std::invalid_argument(
        "rrg: expected nodes >= 2, 1 <= degree < nodes, nodes*degree even, bond >= 1");
  Rng rng(seed);
  for (int attempt = 0;; ++attempt) {
    if (attempt > 100000) throw std::invalid_argument("rrg: no simple connected graph found");
    std::vector<int> stubs;
    for (int v = 0; v < nodes; ++v)
      for (int k = 0; k < degree; ++k) stubs.push_back(v);
    rng.shuffle(stubs);
    std::set<std::pair<int, int>> edges;
    bool simple = true;
    for (std::size_t i = 0; i < stubs.size() && simple; i += 2) {
      const int u = std::min(stubs[i], stubs[i + 1]), v = std::max(stubs[i], stubs[i + 1]);
      simple = u != v && edges.insert({u, v}).second;
    }
    if (!simple) continue;
    // Connected? (union-find)
    std::vector<int> parent(static_cast<std::size_t>(nodes));
    std::iota(parent.begin(), parent.end(), 0);
    std::function<int(int)> find = [&](int x) {
      return parent[x] == x ? x : parent[x] = find(parent[x]);
    };
    int parts = nodes;
    for (auto [u, v] : edges)
      if (find(u) != find(v)) {
        parent[find(u)] = find(v);
        --parts;
      }
    if (parts != 1) continue;
    Builder b;
    b.net.inputs.resize(static_cast<std::size_t>(nodes));
    for (auto [u, v] : edges) {
      const std::int64_t l = b.label(bond);
      b.net.inputs[static_cast<std::size_t>(u)].push_back(l);
      b.net.inputs[static_cast<std::size_t>(v)].push_back(l);
    }
    b.net.params = std::to_string(nodes) + " nodes, degree " + std::to_string(degree) + ", bond " +
                   std::to_string(bond) + ", seed " + std::to_string(seed);
    return b.net;
  }
}

Network peps_norm(int L, std::int64_t D, std::int64_t d) {
  if (L < 1 || D < 1 || d < 1) throw std::invalid_argument("peps: expected L, D, d >= 1");
  Builder b;
  auto idx = [&](int i, int j) { return static_cast<std::size_t>(i * L + j); };
  const std::size_t sites = static_cast<std::size_t>(L * L);
  // Bond labels of each layer: horizontal (i,j)-(i,j+1) and vertical (i,j)-(i+1,j).
  std::vector<EinsumLabels> ket(sites), bra(sites);
  std::vector<std::int64_t> phys(sites);
  for (std::size_t s = 0; s < sites; ++s) {
    phys[s] = b.label(d);
    ket[s].push_back(phys[s]);
    bra[s].push_back(phys[s]);
  }
  for (auto* layer : {&ket, &bra})
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j) {
        if (j + 1 < L) {
          const std::int64_t l = b.label(D);
          (*layer)[idx(i, j)].push_back(l);
          (*layer)[idx(i, j + 1)].push_back(l);
        }
        if (i + 1 < L) {
          const std::int64_t l = b.label(D);
          (*layer)[idx(i, j)].push_back(l);
          (*layer)[idx(i + 1, j)].push_back(l);
        }
      }
  for (std::size_t s = 0; s < sites; ++s) {
    b.tensor(ket[s]);
    b.tensor(bra[s]);
  }
  b.net.params = std::to_string(L) + "x" + std::to_string(L) + ", D=" + std::to_string(D) +
                 ", d=" + std::to_string(d);
  return b.net;
}

Network cubic_lattice(int nx, int ny, int nz, std::int64_t bond) {
  if (nx < 1 || ny < 1 || nz < 1 || bond < 1)
    throw std::invalid_argument("cubic: expected x, y, z, bond >= 1");
  Builder b;
  auto idx = [&](int x, int y, int z) { return static_cast<std::size_t>((x * ny + y) * nz + z); };
  b.net.inputs.resize(static_cast<std::size_t>(nx * ny * nz));
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y)
      for (int z = 0; z < nz; ++z) {
        const int next[3][3] = {{x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
        for (const auto& p : next)
          if (p[0] < nx && p[1] < ny && p[2] < nz) {
            const std::int64_t l = b.label(bond);
            b.net.inputs[idx(x, y, z)].push_back(l);
            b.net.inputs[idx(p[0], p[1], p[2])].push_back(l);
          }
      }
  b.net.params = std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
                 ", bond " + std::to_string(bond);
  return b.net;
}

Network mps_mpo(int length, std::int64_t chi, std::int64_t w, std::int64_t d) {
  if (length < 2 || chi < 1 || w < 1 || d < 1)
    throw std::invalid_argument("mps: expected length >= 2 and chi, w, d >= 1");
  Builder b;
  std::int64_t ka = -1, wa = -1, ba = -1;  // the bonds to the left (none at site 0)
  for (int i = 0; i < length; ++i) {
    const bool last = i + 1 == length;
    const std::int64_t p = b.label(d), q = b.label(d);
    const std::int64_t kb = last ? -1 : b.label(chi), wb = last ? -1 : b.label(w),
                       bb = last ? -1 : b.label(chi);
    auto make = [](std::initializer_list<std::int64_t> ls) {
      EinsumLabels out;
      for (std::int64_t l : ls)
        if (l >= 0) out.push_back(l);
      return out;
    };
    b.tensor(make({ka, p, kb}));     // ket
    b.tensor(make({wa, p, q, wb}));  // MPO
    b.tensor(make({ba, q, bb}));     // bra
    ka = kb;
    wa = wb;
    ba = bb;
  }
  b.net.params = std::to_string(length) + " sites, chi=" + std::to_string(chi) + ", MPO bond " +
                 std::to_string(w) + ", d=" + std::to_string(d);
  return b.net;
}

Network random_tree(int nodes, std::int64_t min_bond, std::int64_t max_bond, std::uint64_t seed) {
  if (nodes < 2 || min_bond < 1 || max_bond < min_bond)
    throw std::invalid_argument("tree: expected nodes >= 2 and 1 <= min <= max");
  Rng rng(seed);
  // Decode a random Pruefer sequence (uniform over labelled trees).
  std::vector<int> seq(static_cast<std::size_t>(nodes - 2));
  for (int& s : seq) s = static_cast<int>(rng.below(nodes));
  std::vector<int> degree(static_cast<std::size_t>(nodes), 1);
  for (int s : seq) ++degree[static_cast<std::size_t>(s)];
  std::set<int> leaves;
  for (int v = 0; v < nodes; ++v)
    if (degree[static_cast<std::size_t>(v)] == 1) leaves.insert(v);
  std::vector<std::pair<int, int>> edges;
  for (int s : seq) {
    const int leaf = *leaves.begin();
    leaves.erase(leaves.begin());
    edges.emplace_back(leaf, s);
    if (--degree[static_cast<std::size_t>(s)] == 1) leaves.insert(s);
  }
  edges.emplace_back(*leaves.begin(), *std::next(leaves.begin()));
  Builder b;
  b.net.inputs.resize(static_cast<std::size_t>(nodes));
  for (auto [u, v] : edges) {
    const std::int64_t l = b.label(min_bond + rng.below(max_bond - min_bond + 1));
    b.net.inputs[static_cast<std::size_t>(u)].push_back(l);
    b.net.inputs[static_cast<std::size_t>(v)].push_back(l);
  }
  b.net.params = std::to_string(nodes) + " nodes, bonds " + std::to_string(min_bond) + ".." +
                 std::to_string(max_bond) + ", seed " + std::to_string(seed);
  return b.net;
}

Network hyper_circuit(int rows, int cols, int cycles, std::uint64_t seed) {
  if (rows < 1 || cols < 1 || cycles < 0)
    throw std::invalid_argument("hypercirc: expected rows, cols >= 1 and cycles >= 0");
  Rng rng(seed);
  Builder b;
  std::vector<std::int64_t> wire(static_cast<std::size_t>(rows * cols));
  auto at = [&](std::pair<int, int> q) -> std::int64_t& {
    return wire[static_cast<std::size_t>(q.first * cols + q.second)];
  };
  for (std::int64_t& w : wire) {
    w = b.label(2);
    b.tensor({w});  // |0>
  }
  auto all = [](int, int) { return true; };
  for (int k = 0; k < cycles; ++k) {
    for (std::int64_t& w : wire) {
      if (rng.below(2) == 0) {
        b.tensor({w});  // diagonal single-qubit gate
      } else {
        const std::int64_t next = b.label(2);
        b.tensor({w, next});
        w = next;
      }
    }
    for (auto [p, q] : pattern_couplers(kPatterns[k % 8], rows, cols, all))
      b.tensor({at(p), at(q)});  // CZ: diagonal, the wires go on
  }
  for (std::int64_t w : wire) b.tensor({w});  // <x|
  b.net.params = std::to_string(rows) + "x" + std::to_string(cols) + " qubits, " +
                 std::to_string(cycles) + " cycles, seed " + std::to_string(seed);
  return b.net;
}

namespace {

struct Preset {
  const char* name;
  const char* kind;
  // Keys and default values ("seed" defaults to --seed).
  std::vector<std::pair<std::string, std::string>> keys;
  const char* what;
};

const std::vector<Preset>& presets() {
  static const std::vector<Preset> p = {
      {"sycamore-raw",
       "sycamore",
       {{"cycles", "20"}, {"drop", "3.2"}, {"simplify", "0"}, {"slice", "0"}},
       "Sycamore random circuit <x|C|0>, every gate a tensor"},
      {"sycamore",
       "sycamore",
       {{"cycles", "20"}, {"drop", "3.2"}, {"simplify", "1"}, {"slice", "0"}},
       "the same, rank<=2 tensors absorbed (the network the published figures are for)"},
      {"sycamore-sliced",
       "sycamore",
       {{"cycles", "20"}, {"drop", "3.2"}, {"simplify", "1"}, {"slice", "30"}},
       "the simplified Sycamore network through slice_plan, memory_limit 2^slice"},
      {"rrg",
       "rrg",
       {{"nodes", "200"},
        {"degree", "3"},
        {"bond", "2"},
        {"seed", ""},
        {"simplify", "0"},
        {"slice", "0"}},
       "random regular graph"},
      {"peps6",
       "peps",
       {{"L", "6"}, {"D", "4"}, {"d", "2"}, {"simplify", "0"}, {"slice", "0"}},
       "PEPS norm <psi|psi>"},
      {"peps8",
       "peps",
       {{"L", "8"}, {"D", "4"}, {"d", "2"}, {"simplify", "0"}, {"slice", "0"}},
       "PEPS norm <psi|psi>"},
      {"cubic",
       "cubic",
       {{"x", "6"}, {"y", "6"}, {"z", "10"}, {"bond", "2"}, {"simplify", "0"}, {"slice", "0"}},
       "3D cubic lattice"},
      {"mps",
       "mps",
       {{"length", "100"},
        {"chi", "32"},
        {"w", "5"},
        {"d", "2"},
        {"simplify", "0"},
        {"slice", "0"}},
       "MPS-MPO-MPS expectation <psi|H|psi>"},
      {"tree",
       "tree",
       {{"nodes", "300"},
        {"min", "2"},
        {"max", "8"},
        {"seed", ""},
        {"simplify", "0"},
        {"slice", "0"}},
       "random tree tensor network"},
      {"hypercirc",
       "hypercirc",
       {{"rows", "6"},
        {"cols", "6"},
        {"cycles", "12"},
        {"seed", ""},
        {"simplify", "0"},
        {"slice", "0"}},
       "circuit with diagonal gates as hyperedges (optional)"},
  };
  return p;
}

long long to_int(const std::string& key, const std::string& v) {
  std::size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty())
    throw std::invalid_argument("network key " + key + ": expected an integer, got '" + v + "'");
  return x;
}

}  // namespace

std::vector<std::string> default_networks() {
  return {"sycamore-raw", "sycamore", "sycamore-sliced", "rrg", "peps6", "peps8", "cubic",
          "mps",          "tree"};
}

std::string network_help() {
  std::string s =
      "Networks: PRESET or PRESET:key=value:key=value (e.g. peps8:D=6, rrg:nodes=300:seed=3).\n"
      "Every preset takes simplify=0|1 (absorb rank<=2 tensors) and slice=K (run slice_plan with\n"
      "memory_limit 2^K instead of the path strategies; 0: off).\n";
  for (const Preset& p : presets()) {
    s += "  " + std::string(p.name) + ": " + p.what + " (";
    bool first = true;
    for (const auto& [k, v] : p.keys) {
      if (k == "simplify" || k == "slice") continue;
      s += (first ? "" : ", ") + k + "=" + (v.empty() ? "--seed" : v);
      first = false;
    }
    s += ")\n";
  }
  s += "  (sycamore: drop=R.C removes qubit (R,C), drop=none keeps all 54)\n";
  return s;
}

Network make_network(const std::string& spec, std::uint64_t seed) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  const Preset* preset = nullptr;
  for (const Preset& p : presets())
    if (parts[0] == p.name) preset = &p;
  if (!preset) throw std::invalid_argument("unknown network '" + parts[0] + "'");
  std::map<std::string, std::string> kv(preset->keys.begin(), preset->keys.end());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq);
    if (eq == std::string::npos || !kv.count(key))
      throw std::invalid_argument("network '" + parts[0] + "': unknown key '" + parts[i] +
                                  "' (see --help)");
    kv[key] = parts[i].substr(eq + 1);
  }
  if (kv.count("seed") && kv["seed"].empty()) kv["seed"] = std::to_string(seed);
  auto num = [&](const char* key) { return to_int(key, kv.at(key)); };
  auto ival = [&](const char* key) { return static_cast<int>(num(key)); };
  const std::string kind = preset->kind;
  Network net;
  if (kind == "sycamore") {
    std::pair<int, int> drop{-1, -1};
    const std::string& d = kv["drop"];
    if (d != "none") {
      const std::size_t dot = d.find('.');
      if (dot == std::string::npos)
        throw std::invalid_argument("sycamore: drop=R.C or drop=none, got '" + d + "'");
      drop = {static_cast<int>(to_int("drop", d.substr(0, dot))),
              static_cast<int>(to_int("drop", d.substr(dot + 1)))};
    }
    net = sycamore(ival("cycles"), drop);
  } else if (kind == "rrg") {
    net = random_regular(ival("nodes"), ival("degree"), num("bond"),
                         static_cast<std::uint64_t>(num("seed")));
  } else if (kind == "peps") {
    net = peps_norm(ival("L"), num("D"), num("d"));
  } else if (kind == "cubic") {
    net = cubic_lattice(ival("x"), ival("y"), ival("z"), num("bond"));
  } else if (kind == "mps") {
    net = mps_mpo(ival("length"), num("chi"), num("w"), num("d"));
  } else if (kind == "tree") {
    net =
        random_tree(ival("nodes"), num("min"), num("max"), static_cast<std::uint64_t>(num("seed")));
  } else {
    net = hyper_circuit(ival("rows"), ival("cols"), ival("cycles"),
                        static_cast<std::uint64_t>(num("seed")));
  }
  net.name = spec;
  if (num("simplify") != 0) net = simplify(std::move(net));
  const long long slice = num("slice");
  if (slice < 0 || slice > 62) throw std::invalid_argument("slice: expected 0..62");
  if (slice > 0) {
    net.slice_limit = static_cast<double>(std::int64_t{1} << slice);
    net.params += ", sliced to 2^" + std::to_string(slice);
  }
  return net;
}

}  // namespace bench::paths
