//! How a kernel's phased threads call a callee that is not a device function: a body calls
//! device function `f` as `f.__ongpu_phased(ctx, args..)` (an inherent `async fn` of each
//! `#[ongpu::device]` item), importing the trait of its number of arguments from here. For
//! any other callee the trait's method calls it at once, with its own parameter types, so
//! that such a call type-checks as written and reports only the error of
//! [`DeviceFunction`](crate::launch::call_site::DeviceFunction), which says to mark it.

use super::cpu::ThreadCtx;
use std::future::{ready, Ready};

macro_rules! phased_fallback {
    ($trait:ident; $($a:ident $arg:ident),*) => {
        /// The phased call of a callee that is not a device function (see the module).
        pub trait $trait<$($a),*> {
            /// The callee's result.
            type Output;
            /// Calls the callee at once.
            #[allow(clippy::too_many_arguments)]
            fn __ongpu_phased(&self, ctx: ThreadCtx, $($arg: $a),*) -> Ready<Self::Output>;
        }

        impl<F: Fn($($a),*) -> R, R, $($a),*> $trait<$($a),*> for F {
            type Output = R;
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn __ongpu_phased(&self, _: ThreadCtx, $($arg: $a),*) -> Ready<R> {
                ready(self($($arg),*))
            }
        }
    };
}

phased_fallback!(NotDeviceFn0;);
phased_fallback!(NotDeviceFn1; A a);
phased_fallback!(NotDeviceFn2; A a, B b);
phased_fallback!(NotDeviceFn3; A a, B b, C c);
phased_fallback!(NotDeviceFn4; A a, B b, C c, D d);
phased_fallback!(NotDeviceFn5; A a, B b, C c, D d, E e);
phased_fallback!(NotDeviceFn6; A a, B b, C c, D d, E e, G g);
phased_fallback!(NotDeviceFn7; A a, B b, C c, D d, E e, G g, H h);
phased_fallback!(NotDeviceFn8; A a, B b, C c, D d, E e, G g, H h, I i);
