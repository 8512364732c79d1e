// Standard tensor networks for the contraction-path benchmark (bench/paths_main.cpp,
// docs/einsum.md "Contraction paths"), generated from their definitions: structure only (labels
// and sizes), no tensor data. Every generator is deterministic: equal parameters (and seed, for
// the random ones) give equal networks on every machine (own SplitMix64, no <random>
// distributions, whose output is implementation-defined).
//
// A network is the integer-label form of einsum: operand k carries inputs[k]; the result carries
// `output` (empty: a scalar); label l has size[l]. A label shared by two operands is a bond, by
// three or more a hyperedge.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tenferro/einsum.hpp"

namespace bench::paths {

struct Network {
  /// The name it was asked for (a preset, possibly with parameters: "peps:L=8").
  std::string name;
  /// Its parameters in words, e.g. "53 qubits, 20 cycles, drop (3,2), simplified".
  std::string params;
  std::vector<tenferro::EinsumLabels> inputs;
  tenferro::EinsumLabels output;
  /// Size of label l (labels are 0..size.size()-1).
  std::vector<std::int64_t> size;
  /// When > 0: the benchmark runs slice_plan with this memory_limit (elements) instead of the path
  /// strategies (the preset "sycamore-sliced").
  double slice_limit = 0;

  std::size_t tensors() const { return inputs.size(); }
  /// Distinct labels that some operand or the output carries.
  std::size_t indices() const;
  std::vector<tenferro::Dims> shapes() const;
};

/// Random quantum circuit on Google's Sycamore grid, amplitude <x|C|0> (scalar): |0> vectors,
/// `cycles` cycles of single-qubit gates (2x2) on every qubit then fSim gates (2x2x2x2) on the
/// couplers of pattern "ABCDCDAB"[k % 8], a last layer of single-qubit gates, <x| vectors. All
/// labels have size 2. `drop` removes a qubit (and its couplers); (-1, -1) keeps all 54.
Network sycamore(int cycles, std::pair<int, int> drop);
/// The qubits (row, column) of the 54-qubit grid, in reading order.
std::vector<std::pair<int, int>> sycamore_qubits();

/// Absorbs every tensor of rank <= 2 into a neighbour (the one sharing most labels, then the
/// lowest position), repeated until none is left that has a neighbour; a rank-0 tensor goes into
/// the first other tensor. The standard preprocessing of circuit networks (cotengra's
/// rank-simplification): for a circuit it folds the single-qubit gates and the boundary vectors
/// into the two-qubit gates. Labels are renumbered densely.
Network simplify(Network net);

/// A random `degree`-regular graph on `nodes` vertices (pairing model, resampled until simple and
/// connected): a tensor per vertex, a label of size `bond` per edge, scalar output.
Network random_regular(int nodes, int degree, std::int64_t bond, std::uint64_t seed);

/// <psi|psi> of an L x L PEPS, open boundaries: ket and bra tensors per site with bonds of size D
/// to the lattice neighbours, joined by the site's physical label of size d. Order: ket, bra of
/// site (0,0), of (0,1), ... (row-major).
Network peps_norm(int L, std::int64_t D, std::int64_t d);

/// An nx x ny x nz cubic lattice, open boundaries, a label of size `bond` per lattice edge,
/// scalar output; sites in row-major (x, y, z) order.
Network cubic_lattice(int nx, int ny, int nz, std::int64_t bond);

/// <psi|H|psi> on an open chain of `length` sites: MPS ket (bond chi), MPO (bond w), MPS bra (bond
/// chi), physical labels of size d between ket/MPO and MPO/bra. Order per site: ket, MPO, bra.
Network mps_mpo(int length, std::int64_t chi, std::int64_t w, std::int64_t d);

/// A uniformly random labelled tree on `nodes` vertices (a random Pruefer sequence): a tensor per
/// vertex, an edge label of size uniform in [min_bond, max_bond], scalar output.
Network random_tree(int nodes, std::int64_t min_bond, std::int64_t max_bond, std::uint64_t seed);

/// A circuit-like network with hyperedges: a rows x cols grid of qubits, `cycles` cycles of a
/// random single-qubit gate per qubit (diagonal with probability 1/2: a rank-1 tensor on the
/// qubit's current wire label, else a 2x2 matrix that starts a new wire label) and CZ gates
/// (diagonal: a rank-2 tensor on the two current wire labels) on the couplers of the same
/// "ABCDCDAB" patterns; |0> and <x| vectors at the ends. Wire labels are hyperedges (cotengra's
/// hyper-index form of diagonal gates).
Network hyper_circuit(int rows, int cols, int cycles, std::uint64_t seed);

/// A network from a command-line spec "preset" or "preset:key=value:key=value" (presets and
/// keys: network_help()); `seed` is the default seed of the random ones. Throws
/// std::invalid_argument for an unknown preset or key or a bad value.
Network make_network(const std::string& spec, std::uint64_t seed);
/// The presets in the default run, in order.
std::vector<std::string> default_networks();
/// The presets, their keys and defaults, for --help.
std::string network_help();

}  // namespace bench::paths
