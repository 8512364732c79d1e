// Backends on a caller-owned oneTBB arena (the "ExternalManaged" execution domain).
//
//   tbb::task_arena mine(8);
//   tenferro::CpuBackend ext = tenferro::external_backend(mine, tenferro::CpuSet::first_n(8));
//   tenferro::BackendGuard use(ext);   // eager ops now run inside mine.execute(...)
//
// Kept apart from tenferro/cpu.hpp so that only code which names a tbb::task_arena pulls in
// oneTBB's headers. CpuBackend::attach (cpu.hpp) is the header-light form: it adopts the arena
// the calling thread is in.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include "tenferro/cpu.hpp"

namespace tenferro {

/// A backend whose operations run on `caller_arena` (entered with arena.execute), claiming the
/// declared CPU set (provider-exclusive for blas). It never creates, initialises differently or
/// destroys that arena; the arena must outlive every copy of the returned backend. Operation-level
/// admission only: with_execution_scope is Error{Unsupported}. Throws Error{InvalidArgument} for
/// an empty declared set.
CpuBackend external_backend(tbb::task_arena& caller_arena, CpuSet declared,
                            BackendKind kind = BackendKind::native);

}  // namespace tenferro
