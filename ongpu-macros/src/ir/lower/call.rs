//! Calls (maths functions, intrinsics, associated functions, device functions, the array
//! constructors) and method calls.

use super::{boxed, not_supported, Context, Lowerer};
use crate::ir::{Call, Callee, Expr, Hop, Method, Shift};
use crate::supported;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::Token;

impl Lowerer {
    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Option<Expr> {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some((depth, cpp)) = supported::array_constructor(&p.path) {
                let checked = self.callee(&p.path, c.args.len());
                let args = self.each(&c.args, |l, a| l.array_of_3(a, depth));
                checked?;
                return Some(Expr::Call(Call {
                    callee: Callee::ArrayConstructor(p.path.clone(), cpp),
                    paren: c.paren_token,
                    args: args?,
                }));
            }
        }
        let callee = match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => self.callee(&p.path, c.args.len()),
            other => {
                self.error(
                    other.span(),
                    not_supported("calling this (only named functions)"),
                );
                None
            }
        };
        let args = match callee {
            Some(Callee::Device(_)) if self.ctx != Context::OnGpu => {
                self.each(&c.args, Self::device_arg)
            }
            _ => self.each(&c.args, Self::expr),
        };
        Some(Expr::Call(Call {
            callee: callee?,
            paren: c.paren_token,
            args: args?,
        }))
    }

    /// An argument of a device function in a kernel or device function: `&a` and `&mut a`
    /// pass a local array by reference.
    fn device_arg(&mut self, e: &syn::Expr) -> Option<Expr> {
        match e {
            syn::Expr::Reference(r) => {
                let place = self.place(&r.expr)?;
                Some(Expr::Borrow(r.and_token, r.mutability, Box::new(place)))
            }
            e => self.expr(e),
        }
    }

    /// What a call of `path` with `args` arguments calls.
    fn callee(&mut self, path: &syn::Path, args: usize) -> Option<Callee> {
        if let Some(id) = path.get_ident() {
            if let Some(n) = supported::kernel_intrinsic(&id.to_string()) {
                // A device function may synchronise the block that calls it (its barriers
                // are the kernel's), but gets indices and arrays from the kernel.
                let in_function = self.ctx == Context::Function
                    && supported::device_fn_intrinsic(&id.to_string());
                if self.ctx != Context::Kernel && !in_function {
                    self.error(
                        id.span(),
                        format!(
                            "`{id}()` can only be used in an #[ongpu::kernel] function: {}",
                            if self.ctx == Context::OnGpu {
                                "an on_gpu! body runs each site on its own, with no block of threads to index or synchronise"
                            } else {
                                "pass what a device function needs (such as thread_idx().x) as an argument"
                            }
                        ),
                    );
                    return None;
                }
                return self.arity(id, n, args, Callee::Intrinsic(id.clone()));
            }
            if let Some(n) = supported::math_function(&id.to_string()) {
                return self.arity(id, n, args, Callee::Math(id.clone()));
            }
            // Any other name must be an #[ongpu::device] function: checked by the trait bound
            // of the expansion, with the message of `DeviceFunction`.
            return Some(Callee::Device(path.clone()));
        }
        if let Some(expected) = supported::associated_call_arity(path) {
            if expected != args {
                self.error(
                    path.span(),
                    format!("this function takes {expected} argument(s)"),
                );
                return None;
            }
            return Some(Callee::Associated(path.clone()));
        }
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            self.error(path.span(), not_supported("a generic function call"));
            return None;
        }
        Some(Callee::Device(path.clone()))
    }

    fn arity(&mut self, id: &syn::Ident, n: usize, args: usize, c: Callee) -> Option<Callee> {
        if n == args {
            Some(c)
        } else {
            self.error(id.span(), format!("`{id}` takes {n} argument(s)"));
            None
        }
    }

    /// The argument of `ColorVector::new` (`depth` 1) or `ColorMatrix::new` (2): array
    /// literals of 3 entries, written out, down to the complex numbers.
    fn array_of_3(&mut self, e: &syn::Expr, depth: usize) -> Option<Expr> {
        if depth == 0 {
            return self.expr(e);
        }
        match e {
            syn::Expr::Array(a) if a.elems.len() == 3 => {
                let elems = self.each(&a.elems, |l, x| l.array_of_3(x, depth - 1));
                Some(Expr::Array(a.bracket_token, elems?))
            }
            syn::Expr::Group(g) => Some(Expr::Group(
                g.group_token,
                boxed(self.array_of_3(&g.expr, depth))?,
            )),
            other => {
                self.error(
                    other.span(),
                    "`ColorVector::new` takes `[a, b, c]` and `ColorMatrix::new` takes \
                     `[[a, b, c], [d, e, f], [g, h, i]]`, written out, with complex entries",
                );
                None
            }
        }
    }

    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if self.ctx != Context::OnGpu && m.method == "len" && m.args.is_empty() {
            let receiver = self.expr(&m.receiver)?;
            return Some(Expr::Len(
                Box::new(receiver),
                m.dot_token,
                m.method.clone(),
                m.paren_token,
            ));
        }
        if let Some(n) = supported::vector_method(&m.method.to_string())
            .filter(|_| self.ctx != Context::OnGpu && m.turbofish.is_none())
        {
            return self.vector_access(m, n);
        }
        if m.method == "shift" && m.turbofish.is_none() {
            return self.shift(m);
        }
        let mut ok = true;
        if let Some(t) = &m.turbofish {
            self.error(t.span(), not_supported("a method call with `::<...>`"));
            ok = false;
        }
        match supported::method(&m.method.to_string()) {
            Some(n) if n == m.args.len() => {}
            Some(n) => {
                self.error(
                    m.method.span(),
                    format!("`.{}()` takes {n} argument(s)", m.method),
                );
                ok = false;
            }
            None => {
                self.error(
                    m.method.span(),
                    format!(
                        "the method `.{}()` is not supported in a GPU body; the supported methods are {}",
                        m.method,
                        supported::method_names()
                    ),
                );
                ok = false;
            }
        }
        let receiver = self.expr(&m.receiver);
        let args = self.each(&m.args, Self::expr);
        ok.then_some(())?;
        Some(Expr::Method(Method {
            receiver: boxed(receiver)?,
            dot: m.dot_token,
            name: m.method.clone(),
            paren: m.paren_token,
            args: args?,
        }))
    }

    /// `a.load4(q)` or `c.store4(q, v)` in a kernel (the analysis checks the receiver).
    fn vector_access(&mut self, m: &syn::ExprMethodCall, n: usize) -> Option<Expr> {
        if m.args.len() != n {
            self.error(
                m.method.span(),
                format!(
                    "`.{}()` takes {n} argument(s): `a.load4(q)` reads elements 4q..4q+3, \
                     `c.store4(q, [w, x, y, z])` writes them",
                    m.method
                ),
            );
            return None;
        }
        let receiver = self.expr(&m.receiver);
        let args = self.each(&m.args, Self::expr);
        Some(Expr::Method(Method {
            receiver: boxed(receiver)?,
            dot: m.dot_token,
            name: m.method.clone(),
            paren: m.paren_token,
            args: args?,
        }))
    }

    /// Lowers every entry of a list (all of them, for their errors), keeping the commas.
    pub(super) fn each(
        &mut self,
        list: &Punctuated<syn::Expr, Token![,]>,
        mut f: impl FnMut(&mut Self, &syn::Expr) -> Option<Expr>,
    ) -> Option<Punctuated<Expr, Token![,]>> {
        let mut out = Punctuated::new();
        let mut ok = true;
        for pair in list.pairs() {
            match f(self, pair.value()) {
                Some(e) => {
                    out.push_value(e);
                    if let Some(p) = pair.punct() {
                        out.push_punct(**p);
                    }
                }
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

impl Lowerer {
    /// `f.shift(mu, k)`: the receiver must be a name (a captured field, which the capture
    /// analysis and the expansion check) or another shift.
    fn shift(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if self.ctx != Context::OnGpu {
            self.error(
                m.method.span(),
                "`.shift(mu, k)` reads a field of an on_gpu! call over a lattice at another \
                 site; device functions and kernels take values and arrays, not lattice fields",
            );
            return None;
        }
        if m.args.len() != 2 {
            self.error(
                m.method.span(),
                "`.shift(mu, k)` takes two arguments: the direction mu and the distance k (e.g. \
                 `f.shift(mu, 1)`, `f.shift(0, -1)`)",
            );
            return None;
        }
        let receiver = self.expr(&m.receiver);
        let mu = self.expr(&m.args[0]);
        let k = self.expr(&m.args[1]);
        let hop = Hop {
            name: m.method.clone(),
            mu: boxed(mu)?,
            k: boxed(k)?,
        };
        match receiver? {
            Expr::Var(field) => Some(Expr::Shift(Shift {
                field,
                hops: vec![hop],
            })),
            Expr::Shift(mut s) => {
                s.hops.push(hop);
                Some(Expr::Shift(s))
            }
            _ => {
                self.error(
                    m.receiver.span(),
                    "only a captured field can be shifted: `f.shift(mu, k)` reads the field `f` \
                     at the site k steps along mu (chains such as `f.shift(0, 1).shift(1, -1)` \
                     too)",
                );
                None
            }
        }
    }
}
