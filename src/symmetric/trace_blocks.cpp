// Traced programs over BlockTensors: the block structure follows from the legs, so a function of
// BlockTensors traces into an ordinary Program over the blocks (tenferro/symmetric.hpp).
#include "symmetric/internal.hpp"

namespace tenferro::symmetric {
namespace {

// A structure-only copy: legs, flux, dtype and the keys (with undefined tensors).
BlockTensor structure_of(const BlockTensor& t, const std::vector<BlockKey>& keys) {
  std::map<BlockKey, Tensor> blocks;
  for (const BlockKey& k : keys) blocks.emplace(k, Tensor());
  return detail::make(t.group(), t.legs(), t.flux(), t.dtype(), std::move(blocks));
}

std::vector<BlockKey> keys_of(const BlockTensor& t) {
  std::vector<BlockKey> k;
  for (const auto& [key, b] : t.blocks()) k.push_back(key);
  return k;
}

}  // namespace

std::vector<Tensor> BlockProgram::flatten_inputs(std::span<const BlockTensor> inputs) const {
  const char* op = "symmetric::BlockProgram";
  if (inputs.size() != input_structures.size())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": " + std::to_string(inputs.size()) +
                                                " inputs, the " + "program takes " +
                                                std::to_string(input_structures.size()));
  std::vector<Tensor> flat;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    detail::require_same_structure(op, input_structures[i], inputs[i]);
    for (const auto& [key, unused] : input_structures[i].blocks())
      flat.push_back(inputs[i].block(key));
  }
  return flat;
}

std::vector<BlockTensor> BlockProgram::unflatten_outputs(std::span<const Tensor> outputs) const {
  std::vector<BlockTensor> out;
  std::size_t next = 0;
  for (const BlockTensor& s : output_structures) {
    std::map<BlockKey, Tensor> blocks;
    for (const auto& [key, unused] : s.blocks()) blocks.emplace(key, outputs[next++]);
    const DType dt = blocks.empty() ? s.dtype() : blocks.begin()->second.dtype();
    out.push_back(detail::make(s.group(), s.legs(), s.flux(), dt, std::move(blocks)));
  }
  if (next != outputs.size())
    throw Error(ErrorKind::InvalidArgument,
                "symmetric::BlockProgram: " + std::to_string(outputs.size()) +
                    " output tensors, the structures need " + std::to_string(next));
  return out;
}

PreparedProgram BlockProgram::prepare(Runtime& rt) const { return rt.prepare(program); }

std::vector<BlockTensor> BlockProgram::run(const Runtime& rt, const PreparedProgram& plan,
                                           std::span<const BlockTensor> inputs) const {
  const std::vector<Tensor> flat = flatten_inputs(inputs);
  const std::vector<Tensor> out = rt.run(plan, flat);
  return unflatten_outputs(out);
}

std::vector<BlockTensor> BlockProgram::run(Runtime& rt, std::span<const BlockTensor> inputs) const {
  PreparedProgram plan;
  {
    // One memo per program (copies of a BlockProgram share it); a plan of another runtime, an
    // older epoch or a replaced program is made again.
    std::lock_guard<std::mutex> lock(memo_->mutex);
    if (!memo_->plan.valid() || memo_->plan.runtime_id() != rt.id() ||
        memo_->plan.epoch() != rt.epoch() || memo_->nodes != program.nodes.data() ||
        memo_->num_nodes != program.nodes.size()) {
      memo_->plan = rt.prepare(program);
      memo_->nodes = program.nodes.data();
      memo_->num_nodes = program.nodes.size();
    }
    plan = memo_->plan;
  }
  return run(rt, plan, inputs);
}

BlockProgram trace_blocks(const BlockFn& f, std::span<const BlockTensor> examples) {
  BlockProgram bp;
  std::vector<ValueSpec> specs;
  for (const BlockTensor& e : examples) {
    const std::vector<BlockKey> keys = e.allowed_keys();
    bp.input_structures.push_back(structure_of(e, keys));
    for (const BlockKey& k : keys) specs.push_back({e.block_shape(k), e.dtype()});
  }
  auto traced = [&](std::span<const Tensor> in) {
    std::vector<BlockTensor> args;
    std::size_t next = 0;
    for (const BlockTensor& s : bp.input_structures) {
      std::map<BlockKey, Tensor> blocks;
      for (const auto& [key, unused] : s.blocks()) blocks.emplace(key, in[next++]);
      args.push_back(detail::make(s.group(), s.legs(), s.flux(), s.dtype(), std::move(blocks)));
    }
    const std::vector<BlockTensor> results = f(args);
    std::vector<Tensor> flat;
    bp.output_structures.clear();
    for (const BlockTensor& r : results) {
      bp.output_structures.push_back(structure_of(r, keys_of(r)));
      for (const auto& [key, b] : r.blocks()) flat.push_back(b);
    }
    return flat;
  };
  bp.program = tenferro::trace(traced, std::span<const ValueSpec>(specs));
  return bp;
}

}  // namespace tenferro::symmetric
