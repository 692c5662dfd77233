//! The sum of the six staples around a link, shared by the calls that need it (a device
//! function cannot shift, so the stencil is a template that writes the whole `on_gpu!` call,
//! as the fermion operators' are).

/// `on_gpu!([head] { let a = A_mu(x); tail })`: `a` is the sum of the six staples around
/// `U_mu(x)`, so that the plaquettes containing `U_mu(x)` sum to `Re tr(U_mu(x) a)`.
macro_rules! with_staples {
    ([$($head:tt)*] $u:ident, $mu:ident, |$a:ident| { $($tail:tt)* }) => {
        on_gpu!($($head)* {
            let mut $a = ColorMatrix::zero();
            for nu in 0..4 {
                if nu != $mu {
                    $a += $u.shift($mu, 1)[nu] * $u.shift(nu, 1)[$mu].adj() * $u[nu].adj();
                    $a += $u.shift($mu, 1).shift(nu, -1)[nu].adj()
                        * $u.shift(nu, -1)[$mu].adj()
                        * $u.shift(nu, -1)[nu];
                }
            }
            $($tail)*
        })
    };
}
pub(crate) use with_staples;
