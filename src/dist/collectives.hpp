// What the collectives and the sliced contractions of tenferro::dist share.
#pragma once

#include "dist/agree.hpp"

namespace tenferro::dist::detail {

/// MPI's datatype for a dtype (bool is MPI_C_BOOL: one byte, as tenferro stores it).
MPI_Datatype mpi_datatype(DType d);
/// MPI's reduction for (op, dtype), named `name` in errors: DTypeMismatch for sum of bool and
/// max/min of complex; f32/f64 max/min are NaN-propagating user-defined operations.
MPI_Op mpi_op(ReduceOp op, DType d, const char* name);
/// A tensor MPI can read: defined, concrete, not recorded by autodiff (InvalidArgument /
/// Unsupported naming `op`).
void check_communicable(const Tensor& x, const char* op);
/// MPI_Allreduce(MPI_IN_PLACE) on a contiguous x, in pieces of at most INT_MAX elements. No
/// agreement step: the caller has agreed already.
void reduce_in_place(const Comm& comm, Tensor& x, MPI_Op op, const char* name);

}  // namespace tenferro::dist::detail
