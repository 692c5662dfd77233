//! The translator's kernel extension: array accesses (through `ONGPU_ELEM`/`ONGPU_SHARED`, which
//! the kernel source defines with or without bounds checks), `shared!` declarations,
//! `.len()`, thread indices, barriers and atomics.

use super::lit::Partner;
use super::Translator;
use crate::ir::{Call, Expr, Let, VectorAccess};
use std::collections::HashMap;

/// Where an array lives.
#[derive(Debug, Clone, Copy)]
enum Storage {
    /// A `&[T]`/`&mut [T]` parameter: a pointer and `ongpu_len_<name>`.
    Param,
    /// The `index`-th `shared!` array, of `rank` dimensions `ongpu_shared_<index>_<d>`.
    Shared { index: usize, rank: usize },
    /// A device function's `&[T]`/`&mut [T]` parameter: an `ongpu::slice`, which checks
    /// its accesses itself.
    Slice,
}

#[derive(Debug, Clone)]
struct Array {
    cpp: String,
    /// The array's number in bounds reports: parameters by position, then shared arrays.
    id: usize,
    storage: Storage,
}

/// The arrays of a kernel body, by Rust name (the kernel analysis forbids rebinding them).
#[derive(Debug, Default)]
pub struct KernelArrays {
    arrays: HashMap<String, Array>,
    params: usize,
    shared: usize,
    /// The dimensions of each `shared!` array, in declaration order.
    shared_ranks: Vec<usize>,
}

impl Translator {
    /// Translates a kernel body: `array_params` are its array parameters as (Rust name, C++
    /// name, position among all `params` parameters), `shared_ranks` the dimensions of its
    /// `shared!` arrays.
    pub fn in_kernel(
        mut self,
        array_params: &[(String, String, usize)],
        params: usize,
        shared_ranks: &[usize],
    ) -> Self {
        let arrays = array_params
            .iter()
            .map(|(rust, cpp, id)| {
                let a = Array {
                    cpp: cpp.clone(),
                    id: *id,
                    storage: Storage::Param,
                };
                (rust.clone(), a)
            })
            .collect();
        self.kernel = Some(KernelArrays {
            arrays,
            params,
            shared: 0,
            shared_ranks: shared_ranks.to_vec(),
        });
        self
    }

    /// Translates a device function whose `&[T]`/`&mut [T]` parameters are `slices` (Rust
    /// name, C++ name).
    pub fn in_device_fn(mut self, slices: &[(String, String)]) -> Self {
        let arrays = slices
            .iter()
            .map(|(rust, cpp)| {
                let a = Array {
                    cpp: cpp.clone(),
                    id: 0,
                    storage: Storage::Slice,
                };
                (rust.clone(), a)
            })
            .collect();
        self.kernel = Some(KernelArrays {
            arrays,
            ..KernelArrays::default()
        });
        self
    }

    /// The arguments of a device call that passes arrays, with each array as an
    /// `ongpu::slice` (`None` if it passes none, or this is no kernel or device function
    /// with arrays).
    pub(super) fn array_args(&mut self, c: &Call) -> Option<String> {
        let passes_arrays = c
            .args
            .iter()
            .any(|a| a.var().is_some_and(|v| self.array(v).is_some()));
        if !passes_arrays {
            return None;
        }
        let args: Vec<String> = c
            .args
            .iter()
            .map(|e| match e.var().and_then(|v| self.array(v)) {
                Some(a) => slice_of(&a),
                None => self.expr(e),
            })
            .collect();
        Some(args.join(", "))
    }

    fn array(&self, name: &syn::Ident) -> Option<Array> {
        self.kernel.as_ref()?.arrays.get(&name.to_string()).cloned()
    }

    /// The C++ of a kernel construct, or `None` if `e` is not one (or this is no kernel).
    pub(super) fn kernel_expr(&mut self, e: &Expr) -> Option<String> {
        self.kernel.as_ref()?;
        if let Some(v) = e.vector_access() {
            if let Some(a) = self.array(v.root) {
                return Some(self.vector(&a, &v));
            }
        }
        if let Some((root, indices)) = e.index_chain() {
            if let Some(a) = self.array(root) {
                return Some(self.access(&a, &indices));
            }
        }
        if let Expr::Len(receiver, ..) = e {
            let a = receiver.var().and_then(|r| self.array(r))?;
            return Some(match a.storage {
                Storage::Param => format!("ongpu_len_{}", a.cpp),
                Storage::Shared { index, .. } => format!("ongpu_shared_{index}_0"),
                Storage::Slice => format!("{}.len()", a.cpp),
            });
        }
        let (name, call) = e.intrinsic_call()?;
        Some(self.intrinsic(&name.to_string(), call))
    }

    /// `a[i]...` on array `a`: the checked (or plain) access of its dimensions, then the
    /// remaining indices on the element.
    fn access(&mut self, a: &Array, indices: &[&Expr]) -> String {
        let rank = match a.storage {
            Storage::Param | Storage::Slice => 1,
            Storage::Shared { rank, .. } => rank,
        };
        let mut out = match a.storage {
            Storage::Slice => format!("{}[({})]", a.cpp, self.expr(indices[0])),
            Storage::Param => {
                let i = self.expr(indices[0]);
                format!("ONGPU_ELEM({}, ({i}), {})", a.cpp, a.id)
            }
            Storage::Shared { .. } => {
                // Both forms: the plain one, and the checked one that sends an out-of-range
                // access to the scratch space (ONGPU_CHECK_BOUNDS picks one).
                let dims = indices[..rank]
                    .iter()
                    .map(|idx| format!("({})", self.expr(idx)))
                    .collect::<Vec<_>>();
                let plain: String = dims.iter().map(|i| format!("[{i}]")).collect();
                format!(
                    "ONGPU_SHARED({0}{plain}, ongpu::shared_at({0}, ongpu_bounds, {1}, {2}))",
                    a.cpp,
                    a.id,
                    dims.join(", ")
                )
            }
        };
        for idx in indices.iter().skip(rank) {
            out = format!("{out}[{}]", self.expr(idx));
        }
        out
    }

    /// `a.load4(q)` or `a.store4(q, v)` (rows of 2-D shared arrays too): one vector access
    /// at the address of element 4q, checked (elements 4q..4q+3 in range, else the scratch
    /// space) or plain depending on the mode.
    fn vector(&mut self, a: &Array, v: &VectorAccess<'_>) -> String {
        let q = self.expr(v.args[0]);
        let place = match a.storage {
            Storage::Param => format!("ONGPU_VEC4({}, ({q}), {})", a.cpp, a.id),
            Storage::Slice => format!("{}.vec4({q})", a.cpp),
            Storage::Shared { .. } => {
                let row = v.row.map(|r| format!("({})", self.expr(r)));
                let (plain_row, checked_row) = match &row {
                    Some(r) => (format!("[{r}]"), format!("{r}, ")),
                    None => (String::new(), String::new()),
                };
                format!(
                    "ONGPU_SHARED(&{0}{plain_row}[4 * (ongpu::u64)({q})], \
                     ongpu::shared_at4({0}, ongpu_bounds, {1}, {checked_row}({q})))",
                    a.cpp, a.id
                )
            }
        };
        if v.is_store() {
            let value = self.expr_like(v.args[1], &Partner::Expr(format!("*{place}")));
            format!("ongpu::store4({place}, {value})")
        } else {
            format!("ongpu::load4({place})")
        }
    }

    fn intrinsic(&mut self, name: &str, call: &Call) -> String {
        match name {
            "thread_idx" => "threadIdx".to_string(),
            "block_idx" => "blockIdx".to_string(),
            "block_dim" => "blockDim".to_string(),
            "grid_dim" => "gridDim".to_string(),
            "sync_threads" => "__syncthreads()".to_string(),
            "thread_fence" => "__threadfence()".to_string(),
            atomic => {
                let Some(Expr::RefMut(_, _, place)) = call.args.first() else {
                    unreachable!("the kernel analysis checked the atomic's target")
                };
                let place = self.expr(place);
                let mut args = vec![format!("&{place}")];
                for a in call.args.iter().skip(1) {
                    args.push(self.expr_like(a, &Partner::Expr(place.clone())));
                }
                format!("ongpu::{atomic}({})", args.join(", "))
            }
        }
    }

    /// `let name = shared!([T; N]);`: a `__shared__` array whose element type and extents
    /// the kernel source defines (from values Rust evaluated). True if `l` was one.
    pub(super) fn kernel_local(&mut self, l: &Let) -> bool {
        let Some(kernel) = &self.kernel else {
            return false;
        };
        let Some((_, Expr::Shared(_))) = &l.init else {
            return false;
        };
        let index = kernel.shared;
        let rank = kernel.shared_ranks[index];
        let id = kernel.params + index;
        let ident = &l.binding.ident;
        let cpp = self.bind(ident);
        let dims: String = (0..rank)
            .map(|d| format!("[ongpu_shared_{index}_{d}]"))
            .collect();
        // Aligned for the vector accesses of `load4`/`store4`.
        self.line(&format!(
            "__shared__ __align__(16) ongpu_shared_t_{index} {cpp}{dims};"
        ));
        let kernel = self.kernel.as_mut().expect("checked above");
        kernel.shared += 1;
        kernel.arrays.insert(
            ident.to_string(),
            Array {
                cpp,
                id,
                storage: Storage::Shared { index, rank },
            },
        );
        true
    }
}

/// Array `a` as a device function's `ongpu::slice` argument (the analysis passes only
/// parameters, slices and 1-D shared arrays).
fn slice_of(a: &Array) -> String {
    match a.storage {
        Storage::Param => format!(
            "ongpu::slice_of({0}, ongpu_len_{0}, ongpu_bounds, {1})",
            a.cpp, a.id
        ),
        Storage::Shared { index, .. } => format!(
            "ongpu::slice_of({}, ongpu_shared_{index}_0, ongpu_bounds, {})",
            a.cpp, a.id
        ),
        Storage::Slice => a.cpp.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::emit_cuda::{Tail, Translator};
    use syn::Block;

    fn kernel(src: &str) -> String {
        let b: Block = syn::parse_str(src).unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::Kernel).unwrap();
        let bound = vec![
            ("a".into(), "a".into()),
            ("c".into(), "c".into()),
            ("n".into(), "n".into()),
        ];
        let arrays = vec![("a".into(), "a".into(), 0), ("c".into(), "c".into(), 1)];
        Translator::new(&b, &bound, "ongpu_real")
            .in_kernel(&arrays, 3, &[2])
            .translate(&b.block, Tail::Discard)
            .code
    }

    #[test]
    fn array_accesses_go_through_the_bounds_macros() {
        let c =
            kernel("{ let i = thread_idx().x; c[i] = a[i + 1u32] * 2.0; c[0] += a.len() as f32; }");
        assert!(c.contains("auto i = threadIdx.x;"), "{c}");
        assert!(
            c.contains("ONGPU_ELEM(c, (i), 1) = (ONGPU_ELEM(a, ((i + 1u)), 0) * ongpu::lit<decltype(ONGPU_ELEM(a, ((i + 1u)), 0)), ongpu_real>(2.0f, 2.0));"),
            "{c}"
        );
        assert!(
            c.contains("ONGPU_ELEM(c, (0), 1) += ongpu::cast<float>(ongpu_len_a);"),
            "{c}"
        );
    }

    #[test]
    fn shared_arrays_barriers_and_atomics() {
        let c = kernel(
            "{ let t = shared!([[f32; 16]; 8]); t[1][n] = 0.0; sync_threads(); \
             atomic_add(&mut t[0][1], 1.0); let old = atomic_cas(&mut c[n], 0.0, a[0]); }",
        );
        assert!(
            c.contains(
                "__shared__ __align__(16) ongpu_shared_t_0 t[ongpu_shared_0_0][ongpu_shared_0_1];"
            ),
            "{c}"
        );
        assert!(
            c.contains(
                "ONGPU_SHARED(t[(1)][(n)], ongpu::shared_at(t, ongpu_bounds, 3, (1), (n))) = "
            ),
            "{c}"
        );
        assert!(c.contains("__syncthreads();"), "{c}");
        assert!(
            c.contains(
                "ongpu::atomic_add(&ONGPU_SHARED(t[(0)][(1)], ongpu::shared_at(t, ongpu_bounds, 3, (0), (1))), "
            ),
            "{c}"
        );
        assert!(
            c.contains("ongpu::atomic_cas(&ONGPU_ELEM(c, (n), 1), "),
            "{c}"
        );
    }

    #[test]
    fn local_arrays_are_ongpu_arrays() {
        let c = kernel(
            "{ let mut acc = [[0.0f32; TM]; 2 * TN]; let b: [f32; 2] = [1.0, a[0]]; \
             for i in 0..2 { acc[i][1] += b[i]; } let z = [0.5; 4]; }",
        );
        assert!(
            c.contains(
                "auto acc = ongpu::fill<((ongpu::lit_int<decltype(TN)>(2) * TN))>(ongpu::fill<(TM)>(0.0f));"
            ),
            "{c}"
        );
        assert!(
            c.contains("auto b = ongpu::array_of(1.0f, ONGPU_ELEM(a, (0), 0));"),
            "{c}"
        );
        assert!(c.contains("acc[i][1] += b[i];"), "{c}");
        assert!(
            c.contains("auto z = ongpu::fill<(4ull)>(ongpu::lit<ongpu_real, ongpu_real>"),
            "{c}"
        );
    }

    #[test]
    fn vector_accesses_go_through_the_bounds_macros() {
        let c = kernel(
            "{ let t = shared!([[f32; 8]; 2]); t[n].store4(1, a.load4(n)); \
             c.store4(0, [1.0, 2.0, 3.0, 4.0]); }",
        );
        assert!(
            c.contains(
                "ongpu::store4(ONGPU_SHARED(&t[(n)][4 * (ongpu::u64)(1)], \
                 ongpu::shared_at4(t, ongpu_bounds, 3, (n), (1))), \
                 ongpu::load4(ONGPU_VEC4(a, (n), 0)));"
            ),
            "{c}"
        );
        assert!(
            c.contains("ongpu::store4(ONGPU_VEC4(c, (0), 1), ongpu::array_of(ongpu::lit<decltype(*ONGPU_VEC4(c, (0), 1)), ongpu_real>(1.0f, 1.0)"),
            "{c}"
        );
    }

    #[test]
    fn arrays_pass_to_device_functions_as_slices() {
        let c = kernel(
            "{ let t = shared!([[f32; 8]; 2]); let mut r = [0u32; 4]; \
             let s = sum(a, c, n); fill(&mut r, &r[0]); }",
        );
        assert!(
            c.contains(
                "auto s = ongpu_fn_sum(ongpu::slice_of(a, ongpu_len_a, ongpu_bounds, 0), \
                        ongpu::slice_of(c, ongpu_len_c, ongpu_bounds, 1), n);"
            ),
            "{c}"
        );
        assert!(c.contains("ongpu_fn_fill(r, r[0]);"), "{c}");
    }
}
