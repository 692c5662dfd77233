//! The sum of the six staples around a link, shared by the calls that need it (a device
//! function cannot shift, so the stencil is a template that writes the whole `on_gpu!` call,
//! as the fermion operators' are).

/// `on_gpu!([head] { let a = A_mu(x); tail })`: `a` is the sum of the six staples around
/// `U_mu(x)`, so that the plaquettes containing `U_mu(x)` sum to `Re tr(U_mu(x) a)`.
///
/// `mu` is a literal (the callers write one pass per direction, through
/// [`by_direction`]): with the direction a constant of the kernel, every link index is
/// known when it compiles and the loaded links stay in registers; a direction known only
/// at run time indexes them in local memory (and loads every direction of an array
/// element), which cost the force pass ten times its memory time.
///
/// `with_staples!([head] u, mu, planes = n, |a| { … })` sums only the staples in the planes
/// of `mu` with the directions `0..n` (`n = 3`: the spatial ones, time being direction 3).
macro_rules! with_staples {
    ([$($head:tt)*] $u:ident, $mu:literal, |$a:ident| { $($tail:tt)* }) => {
        with_staples!([$($head)*] $u, $mu, planes = 4, |$a| { $($tail)* })
    };
    ([$($head:tt)*] $u:ident, $mu:literal, planes = $n:literal, |$a:ident| { $($tail:tt)* }) => {
        on_gpu!($($head)* {
            let mut $a = ColorMatrix::zero();
            for nu in 0..$n {
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

/// `by_direction!(mu, pass)`: `pass!(0)` … `pass!(3)` as `mu` says, so that each direction
/// is a kernel of its own with the direction a literal (see [`with_staples`]).
macro_rules! by_direction {
    ($mu:expr, $pass:ident) => {
        match $mu {
            0 => $pass!(0),
            1 => $pass!(1),
            2 => $pass!(2),
            3 => $pass!(3),
            other => Err(ongpu::Error::InvalidArgument(format!(
                "direction {other}: a 4-D lattice has directions 0..4"
            ))),
        }
    };
}
pub(crate) use by_direction;
