//! The translator's kernel extension: array accesses (through `ONGPU_AT`/`ONGPU_SHARED`, which
//! the kernel source defines with or without bounds checks), `shared!` declarations,
//! `.len()`, thread indices, barriers and atomics.

use super::lit::Partner;
use super::Translator;
use crate::kernel::syntax::{index_chain, intrinsic_call, path_ident, shared_macro, shared_type};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::Expr;

/// Where an array lives.
#[derive(Debug, Clone, Copy)]
enum Storage {
    /// A `&[T]`/`&mut [T]` parameter: a pointer and `ongpu_len_<name>`.
    Param,
    /// The `index`-th `shared!` array, of `rank` dimensions `ongpu_shared_<index>_<d>`.
    Shared { index: usize, rank: usize },
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
}

impl Translator {
    /// Translates a kernel body: `array_params` are its array parameters as (Rust name, C++
    /// name, position among all `params` parameters).
    pub fn in_kernel(mut self, array_params: &[(String, String, usize)], params: usize) -> Self {
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
        });
        self
    }

    fn array(&self, name: &syn::Ident) -> Option<Array> {
        self.kernel.as_ref()?.arrays.get(&name.to_string()).cloned()
    }

    /// The C++ of a kernel construct, or `None` if `e` is not one (or this is no kernel).
    pub(super) fn kernel_expr(&mut self, e: &Expr) -> syn::Result<Option<String>> {
        if self.kernel.is_none() {
            return Ok(None);
        }
        if let Some((root, indices)) = index_chain(e) {
            if let Some(a) = self.array(root) {
                return self.access(&a, &indices).map(Some);
            }
        }
        if let Expr::MethodCall(m) = e {
            if m.method == "len" && m.args.is_empty() {
                if let Some(a) = path_ident(&m.receiver).and_then(|r| self.array(r)) {
                    return Ok(Some(match a.storage {
                        Storage::Param => format!("ongpu_len_{}", a.cpp),
                        Storage::Shared { index, .. } => format!("ongpu_shared_{index}_0"),
                    }));
                }
            }
        }
        match intrinsic_call(e) {
            Some((name, call)) => self.intrinsic(&name, call).map(Some),
            None => Ok(None),
        }
    }

    /// `a[i]...` on array `a`: the checked (or plain) access of its dimensions, then the
    /// remaining indices on the element.
    fn access(&mut self, a: &Array, indices: &[&Expr]) -> syn::Result<String> {
        let rank = match a.storage {
            Storage::Param => 1,
            Storage::Shared { rank, .. } => rank,
        };
        let mut out = match a.storage {
            Storage::Param => {
                let i = self.expr(indices[0])?;
                format!("ONGPU_AT({}, ({i}), {})", a.cpp, a.id)
            }
            Storage::Shared { .. } => {
                // Both forms: the plain one, and the checked one that sends an out-of-range
                // access to the scratch space (ONGPU_CHECK_BOUNDS picks one).
                let dims = indices[..rank]
                    .iter()
                    .map(|idx| Ok(format!("({})", self.expr(idx)?)))
                    .collect::<syn::Result<Vec<_>>>()?;
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
            out = format!("{out}[{}]", self.expr(idx)?);
        }
        Ok(out)
    }

    fn intrinsic(&mut self, name: &str, call: &syn::ExprCall) -> syn::Result<String> {
        Ok(match name {
            "thread_idx" => "threadIdx".to_string(),
            "block_idx" => "blockIdx".to_string(),
            "block_dim" => "blockDim".to_string(),
            "grid_dim" => "gridDim".to_string(),
            "sync_threads" => "__syncthreads()".to_string(),
            "thread_fence" => "__threadfence()".to_string(),
            atomic => {
                let Some(Expr::Reference(place)) = call.args.first() else {
                    return Err(syn::Error::new(
                        call.span(),
                        "the first argument of an atomic is `&mut a[i]`",
                    ));
                };
                let place = self.expr(&place.expr)?;
                let mut args = vec![format!("&{place}")];
                for a in call.args.iter().skip(1) {
                    args.push(self.expr_like(a, &Partner::Expr(place.clone()))?);
                }
                format!("ongpu::{atomic}({})", args.join(", "))
            }
        })
    }

    /// `let name = shared!([T; N]);`: a `__shared__` array whose element type and extents
    /// the kernel source defines (from values Rust evaluated). True if `l` was one.
    pub(super) fn kernel_local(&mut self, l: &syn::Local) -> syn::Result<bool> {
        let Some(kernel) = &self.kernel else {
            return Ok(false);
        };
        let Some(mac) = l.init.as_ref().and_then(|i| shared_macro(&i.expr)) else {
            return Ok(false);
        };
        let rank = shared_type(mac)?.dims.len();
        let index = kernel.shared;
        let id = kernel.params + index;
        let ident = crate::captures::binding_ident(&l.pat)
            .ok_or_else(|| syn::Error::new(l.pat.span(), "bind a shared! array to a plain name"))?;
        let cpp = self.bind(ident);
        let dims: String = (0..rank)
            .map(|d| format!("[ongpu_shared_{index}_{d}]"))
            .collect();
        self.line(&format!("__shared__ ongpu_shared_t_{index} {cpp}{dims};"));
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
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::emit_cuda::{Tail, Translator};
    use syn::Block;

    fn kernel(src: &str) -> String {
        let b: Block = syn::parse_str(src).unwrap();
        let bound = vec![
            ("a".into(), "a".into()),
            ("c".into(), "c".into()),
            ("n".into(), "n".into()),
        ];
        let arrays = vec![("a".into(), "a".into(), 0), ("c".into(), "c".into(), 1)];
        Translator::new(&b, &bound, "ongpu_real")
            .in_kernel(&arrays, 3)
            .translate(&b, Tail::Discard)
            .unwrap()
            .code
    }

    #[test]
    fn array_accesses_go_through_the_bounds_macros() {
        let c =
            kernel("{ let i = thread_idx().x; c[i] = a[i + 1u32] * 2.0; c[0] += a.len() as f32; }");
        assert!(c.contains("auto i = threadIdx.x;"), "{c}");
        assert!(
            c.contains("ONGPU_AT(c, (i), 1) = (ONGPU_AT(a, ((i + 1u)), 0) * ongpu::lit<decltype(ONGPU_AT(a, ((i + 1u)), 0)), ongpu_real>(2.0f, 2.0));"),
            "{c}"
        );
        assert!(
            c.contains("ONGPU_AT(c, (0), 1) += ongpu::cast<float>(ongpu_len_a);"),
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
            c.contains("__shared__ ongpu_shared_t_0 t[ongpu_shared_0_0][ongpu_shared_0_1];"),
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
            c.contains("ongpu::atomic_cas(&ONGPU_AT(c, (n), 1), "),
            "{c}"
        );
    }
}
