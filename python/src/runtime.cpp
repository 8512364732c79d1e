// Traced programs (trace.hpp), Runtime/PreparedProgram, CpuBackend (cpu.hpp), use_backend
// (BackendGuard, eager.hpp) and the execution scope from Python (Note [GIL policy]).
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "common.hpp"

namespace tenferro::python {

namespace {

ValueSpec to_spec(py::handle h) {
  if (py::isinstance<ValueSpec>(h)) return h.cast<ValueSpec>();
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    return ValueSpec{t.shape(), t.dtype()};
  }
  if (py::hasattr(h, "shape") && py::hasattr(h, "dtype"))  // a NumPy array or similar
    return ValueSpec{to_dims(h.attr("shape")), to_dtype(h.attr("dtype"))};
  if (py::isinstance<py::tuple>(h) && py::len(h) == 2 && !py::isinstance<py::int_>(h[py::int_(0)]))
    return ValueSpec{to_dims(h[py::int_(0)]), to_dtype(h[py::int_(1)])};
  return ValueSpec{to_dims(py::reinterpret_borrow<py::object>(h)), DType::f64};
}

std::vector<ValueSpec> to_specs(const py::object& specs) {
  std::vector<ValueSpec> out;
  for (py::handle h : specs) out.push_back(to_spec(h));
  return out;
}

/// One output: the tensor; several: a tuple.
py::object unpack(std::vector<Tensor> outs) {
  if (outs.size() == 1) return py::cast(std::move(outs[0]));
  py::tuple t(outs.size());
  for (std::size_t k = 0; k < outs.size(); ++k) t[k] = py::cast(std::move(outs[k]));
  return t;
}

std::vector<Tensor> to_tensors(const py::args& args) {
  std::vector<Tensor> out;
  for (py::handle h : args) out.push_back(asarray(py::reinterpret_borrow<py::object>(h)));
  return out;
}

/// A plan together with the runtime that made it: calling it runs it.
struct Prepared {
  Runtime runtime;
  PreparedProgram plan;
};

/// use_backend(b): a BackendGuard for the body of a with statement (thread-bound). Exits in any
/// order are fine (eager.hpp: the innermost live guard is current). A context entered and never
/// exited that Python frees on another thread leaks its guard instead of unlinking it from that
/// other thread's list (Note [Current backend frames] in src/cpu/current_backend.cpp); the
/// entering thread keeps it as a live guard.
struct UseBackend {
  explicit UseBackend(CpuBackend b) : backend(std::move(b)) {}
  UseBackend(UseBackend&&) = default;
  ~UseBackend() {
    if (guard && thread != std::this_thread::get_id()) (void)guard.release();
  }
  CpuBackend backend;
  std::unique_ptr<BackendGuard> guard;
  std::thread::id thread;
};

/// What a Session reports, copied out of the callback.
struct SessionInfo {
  int threads;
  std::string kind;
};

// Note [GIL policy]: a thread that is about to sleep on a resource permit lets go of the GIL.
void* release_gil_for_permit_wait() {
  if (!Py_IsInitialized() || PyGILState_Check() == 0) return nullptr;
  return PyEval_SaveThread();
}
void reacquire_gil_after_permit_wait(void* state) {
  if (state != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(state));
}

py::dict diagnostics_dict(const CpuBackendDiagnostics& d) {
  py::dict r;
  r["executor_entries"] = d.executor_entries;
  r["permits_acquired"] = d.permits_acquired;
  r["parallel_loops"] = d.parallel_loops;
  r["threads"] = d.threads;
  r["kind"] = std::string(to_string(d.kind));
  r["cpus"] = d.cpus.to_vector();
  r["external"] = d.external;
  r["arena_created"] = d.arena_created;
  r["pinning_requested"] = d.pinning_requested;
  r["pinning_verified"] = d.pinning_verified;
  r["workers_pinned"] = d.workers_pinned;
  r["pin_failures"] = d.pin_failures;
  r["pinning_note"] = d.pinning_note;
  return r;
}

BackendKind to_kind(const std::string& s) {
  if (s == "native") return BackendKind::native;
  if (s == "blas") return BackendKind::blas;
  throw Error(ErrorKind::InvalidArgument,
              "CpuBackend: kind must be 'native' or 'blas', not '" + s + "'");
}

CpuSet to_cpuset(const std::vector<int>& cpus) {
  CpuSet s;
  for (int c : cpus) s.add(c);
  return s;
}

}  // namespace

void bind_runtime(py::module_& m) {
  set_permit_wait_hooks({&release_gil_for_permit_wait, &reacquire_gil_after_permit_wait});
  // ---- Programs ----
  py::class_<ValueSpec>(m, "ValueSpec", "Shape and dtype of a program value.")
      .def(py::init([](const py::object& shape, py::handle dtype) {
             return ValueSpec{to_dims(shape), to_dtype(dtype)};
           }),
           "shape"_a, "dtype"_a = "f64")
      .def_property_readonly("shape",
                             [](const ValueSpec& s) {
                               return std::vector<std::int64_t>(s.shape.begin(), s.shape.end());
                             })
      .def_property_readonly("dtype",
                             [](const ValueSpec& s) {
                               return py::module_::import("tenferro._tenferro")
                                   .attr("dtype")(std::string(dtype_name(s.dtype)));
                             })
      .def("__eq__", [](const ValueSpec& a, const ValueSpec& b) { return a == b; })
      .def("__repr__", [](const ValueSpec& s) { return "ValueSpec(" + to_string(s) + ")"; });
  py::class_<Program>(m, "Program", "A traced program (plain data); str() prints it.")
      .def("__str__", &Program::to_string)
      .def("__repr__", &Program::to_string)
      .def_readonly("num_values", &Program::num_values)
      .def_readonly("inputs", &Program::inputs)
      .def_readonly("outputs", &Program::outputs)
      .def_readonly("input_specs", &Program::input_specs)
      .def_property_readonly("output_specs", &Program::output_specs)
      .def_property_readonly("num_nodes", [](const Program& p) { return p.nodes.size(); })
      .def_property_readonly("node_names",
                             [](const Program& p) {
                               std::vector<std::string> names;
                               for (const ProgramNode& n : p.nodes) names.emplace_back(n.name());
                               return names;
                             })
      .def("fingerprint", &Program::fingerprint)
      .def("structurally_equal",
           [](const Program& a, const Program& b) { return structurally_equal(a, b); })
      .def("__call__", [](const Program& p, py::args args) {
        std::vector<Tensor> in = to_tensors(args);
        return unpack(
            call([&](const std::vector<Tensor>& v) { return p(std::span<const Tensor>(v)); }, in));
      });
  m.def(
      "trace",
      [](py::function f, const py::object& specs) {
        std::vector<ValueSpec> sp = to_specs(specs);
        auto fn = [&f](std::span<const Tensor> in) -> std::vector<Tensor> {
          py::tuple args(in.size());
          for (std::size_t k = 0; k < in.size(); ++k) args[k] = py::cast(in[k]);
          py::object r = f(*args);
          std::vector<Tensor> out;
          if (py::isinstance<Tensor>(r)) {
            out.push_back(r.cast<Tensor>());
          } else {
            for (py::handle h : r) out.push_back(h.cast<Tensor>());
          }
          return out;
        };
        return trace(fn, std::span<const ValueSpec>(sp));
      },
      "f"_a, "specs"_a,
      "Captures f(*symbolic_inputs) for the given specs (ValueSpec, (shape, dtype), a shape, or "
      "an array/tensor whose shape and dtype are used). f is called once, with the GIL held.");
  m.def(
      "grad_program",
      [](const Program& p, const py::object& wrt) {
        std::vector<int> w;
        if (!wrt.is_none()) {
          if (py::isinstance<py::int_>(wrt))
            w.push_back(wrt.cast<int>());
          else
            w = wrt.cast<std::vector<int>>();
        }
        return grad(p, std::span<const int>(w));
      },
      "program"_a, "wrt"_a = py::none());
  m.def(
      "vjp_program", [](const Program& p) { return vjp(p); }, "program"_a);
  m.def(
      "jvp_program", [](const Program& p) { return jvp(p); }, "program"_a);
  m.def("eliminate_dead_code", &eliminate_dead_code, "program"_a);
  m.def("fold_shapes", &fold_shapes, "program"_a);
  m.def("eliminate_common_subexpressions", &eliminate_common_subexpressions, "program"_a);
  m.def("optimize", &optimize, "program"_a);

  // ---- Backends ----
  py::class_<SessionInfo>(m, "SessionInfo", "threads and kind of the session in with_session.")
      .def_readonly("threads", &SessionInfo::threads)
      .def_readonly("kind", &SessionInfo::kind);
  py::class_<CpuBackend>(m, "CpuBackend",
                         "A CPU backend witness (copies share one backend). CpuBackend(threads=0, "
                         "kind='native'|'blas', placement=None, pin_workers=False, "
                         "buffer_pool_limit_bytes=256 MiB, admission_timeout=None seconds).")
      .def(py::init([](int threads, const std::string& kind,
                       const std::optional<std::vector<int>>& placement, bool pin_workers,
                       std::size_t pool_limit, const std::optional<double>& timeout_s) {
             CpuBackendOptions o;
             o.threads = threads;
             o.kind = to_kind(kind);
             if (placement) o.placement = to_cpuset(*placement);
             o.pin_workers = pin_workers;
             o.buffer_pool_limit_bytes = pool_limit;
             if (timeout_s)
               o.admission_timeout =
                   std::chrono::milliseconds(static_cast<std::int64_t>(*timeout_s * 1000.0));
             return CpuBackend(o);
           }),
           "threads"_a = 0, "kind"_a = "native", "placement"_a = py::none(),
           "pin_workers"_a = false, "buffer_pool_limit_bytes"_a = std::size_t{256} << 20,
           "admission_timeout"_a = py::none())
      .def_property_readonly("threads", &CpuBackend::threads)
      .def_property_readonly("kind",
                             [](const CpuBackend& b) { return std::string(to_string(b.kind())); })
      .def_property_readonly("cpus", [](const CpuBackend& b) { return b.cpus().to_vector(); })
      .def_property_readonly("identity", &CpuBackend::identity)
      .def_property_readonly("is_external", &CpuBackend::is_external)
      .def_property_readonly("executor_entries", &CpuBackend::executor_entries)
      .def("diagnostics", [](const CpuBackend& b) { return diagnostics_dict(b.diagnostics()); })
      .def("buffer_pool_stats",
           [](const CpuBackend& b) {
             BufferPoolStats s = b.buffer_pool_stats();
             py::dict r;
             r["hits"] = s.hits;
             r["misses"] = s.misses;
             r["dropped"] = s.dropped;
             r["retained_bytes"] = s.retained_bytes;
             r["retained_buffers"] = s.retained_buffers;
             r["outstanding_buffers"] = s.outstanding_buffers;
             r["outstanding_bytes"] = s.outstanding_bytes;
             r["limit_bytes"] = s.limit_bytes;
             return r;
           })
      .def("reset_buffer_pool", &CpuBackend::reset_buffer_pool)
      .def("set_buffer_pool_limit", &CpuBackend::set_buffer_pool_limit, "bytes"_a)
      .def("clear_caches",
           [](const CpuBackend& b) {
             py::gil_scoped_release release;  // blocks until no operation borrows the engine
             b.clear_caches();
           })
      .def("same_witness", &CpuBackend::same_witness, "other"_a)
      .def("__eq__", &CpuBackend::same_witness)
      .def("__hash__", &CpuBackend::identity)
      .def("__repr__",
           [](const CpuBackend& b) {
             return "CpuBackend(threads=" + std::to_string(b.threads()) + ", kind='" +
                    std::string(to_string(b.kind())) +
                    "', identity=" + std::to_string(b.identity()) + ")";
           })
      .def(
          "with_execution_scope",
          [](const CpuBackend& b, py::function fn, py::args args, py::kwargs kwargs) {
            // The wait for the permit happens without the GIL; the body runs with it.
            py::object result;
            std::exception_ptr error;
            {
              py::gil_scoped_release release;
              b.with_execution_scope([&] {
                py::gil_scoped_acquire acquire;
                try {
                  result = fn(*args, **kwargs);
                } catch (...) {
                  error = std::current_exception();
                }
              });
            }
            if (error) std::rethrow_exception(error);
            return result;
          },
          "fn"_a,
          "Runs fn(*args, **kwargs) under one permit and one executor entry and returns its value; "
          "its exceptions propagate after the scope is released. A scope inside a scope is "
          "RuntimeStateError.")
      .def(
          "with_session",
          [](const CpuBackend& b, py::function fn, py::args args, py::kwargs kwargs) {
            // As with_execution_scope; fn gets a SessionInfo (the Session itself is valid only
            // inside the callback, so Python receives a copy of what it reports).
            py::object result;
            std::exception_ptr error;
            {
              py::gil_scoped_release release;
              b.with_session([&](Session& s) {
                py::gil_scoped_acquire acquire;
                try {
                  result = fn(SessionInfo{s.threads(), std::string(to_string(s.kind()))}, *args,
                              **kwargs);
                } catch (...) {
                  error = std::current_exception();
                }
              });
            }
            if (error) std::rethrow_exception(error);
            return result;
          },
          "fn"_a,
          "Runs fn(session, *args, **kwargs) under one admission (CpuBackend::with_session) and "
          "returns its value; a session inside a session is ContractViolation.");
  m.def("default_backend", [] { return default_backend(); });
  m.def("current_backend", [] { return current_backend(); });
  py::class_<UseBackend>(m, "_UseBackend")
      .def("__enter__",
           [](UseBackend& u) {
             if (u.guard)
               throw Error(ErrorKind::RuntimeState, "use_backend: context entered twice");
             u.guard = std::make_unique<BackendGuard>(u.backend);
             u.thread = std::this_thread::get_id();
             return u.backend;
           })
      .def("__exit__", [](UseBackend& u, py::args) {
        if (u.guard && u.thread != std::this_thread::get_id())
          throw Error(ErrorKind::RuntimeState,
                      "use_backend: exited on another thread than it was entered on");
        u.guard.reset();
        return false;
      });
  m.def(
      "use_backend", [](const CpuBackend& b) { return UseBackend(b); }, "backend"_a,
      "Context manager: eager ops on this thread run on `backend` (BackendGuard).");

  // ---- Runtime ----
  py::class_<Prepared>(m, "PreparedProgram",
                       "A plan for one program on one runtime; call it to run.")
      .def("__call__",
           [](const Prepared& p, py::args args) {
             std::vector<Tensor> in = to_tensors(args);
             return unpack(call(
                 [&](const std::vector<Tensor>& v) {
                   return p.runtime.run(p.plan, std::span<const Tensor>(v));
                 },
                 in));
           })
      .def(
          "run_into",
          [](const Prepared& p, const std::vector<Tensor>& inputs, py::list outputs) {
            // Runtime::run_into fills caller SLOTS (it moves the results in): the list's items are
            // replaced, as the C++ span's elements are.
            std::vector<Tensor> slots(py::len(outputs));
            call(
                [&](const std::vector<Tensor>& v) {
                  p.runtime.run_into(p.plan, std::span<const Tensor>(v), std::span<Tensor>(slots));
                },
                inputs);
            for (std::size_t k = 0; k < slots.size(); ++k)
              outputs[k] = py::cast(std::move(slots[k]));
          },
          "inputs"_a, "outputs"_a,
          "Runs into the slots of the list `outputs` (its items are replaced).")
      .def_property_readonly("input_specs",
                             [](const Prepared& p) {
                               auto s = p.plan.input_specs();
                               return std::vector<ValueSpec>(s.begin(), s.end());
                             })
      .def_property_readonly("output_specs",
                             [](const Prepared& p) {
                               auto s = p.plan.output_specs();
                               return std::vector<ValueSpec>(s.begin(), s.end());
                             })
      .def_property_readonly("program", [](const Prepared& p) { return p.plan.program(); })
      .def_property_readonly("workspace_bytes",
                             [](const Prepared& p) { return p.plan.workspace_bytes(); })
      .def_property_readonly("kernel_steps",
                             [](const Prepared& p) { return p.plan.kernel_steps(); })
      .def_property_readonly("epoch", [](const Prepared& p) { return p.plan.epoch(); });
  py::class_<Runtime>(m, "Runtime", "Prepares and runs programs on a CPU backend.")
      .def(py::init([](const std::optional<CpuBackend>& b, std::size_t cap) {
             return Runtime(b ? *b : default_backend(), cap);
           }),
           "backend"_a = py::none(), "plan_cache_capacity"_a = 64)
      .def_property_readonly("id", &Runtime::id)
      .def_property_readonly("epoch", &Runtime::epoch)
      .def_property_readonly("backend", &Runtime::backend)
      .def("set_backend", &Runtime::set_backend, "backend"_a)
      .def(
          "prepare",
          [](Runtime& rt, const Program& p, const py::object& specs) {
            PreparedProgram plan;
            if (specs.is_none()) {
              plan = rt.prepare(p);
            } else {
              std::vector<ValueSpec> sp = to_specs(specs);
              plan = rt.prepare(p, std::span<const ValueSpec>(sp));
            }
            return Prepared{rt, plan};
          },
          "program"_a, "specs"_a = py::none())
      .def(
          "run",
          [](const Runtime& rt, const Prepared& p, const std::vector<Tensor>& in) {
            return call(
                [&](const std::vector<Tensor>& v) {
                  return rt.run(p.plan, std::span<const Tensor>(v));
                },
                in);
          },
          "plan"_a, "inputs"_a, "Runs `plan` on this runtime (a list of outputs).")
      .def("cache_stats",
           [](const Runtime& rt) {
             PlanCacheStats s = rt.cache_stats();
             py::dict r;
             r["hits"] = s.hits;
             r["misses"] = s.misses;
             r["evictions"] = s.evictions;
             r["size"] = s.size;
             r["capacity"] = s.capacity;
             return r;
           })
      .def("clear_cache", &Runtime::clear_cache);
}

}  // namespace tenferro::python
