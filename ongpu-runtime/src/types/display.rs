//! Text forms of the colour types, for `println!` in bodies (both backends format with
//! these, so a line reads the same from either) and for users: a vector `[a, b, c]`, a
//! matrix `[[..], [..], [..]]` by rows, every entry in num-complex's form (`1+2i`) with the
//! formatter's options (`{:.3}`, `{:e}`) applied to each entry.

use super::{ColorMatrix, ColorVector};
use num_complex::Complex;
use std::fmt::{self, Formatter};

/// `[e0, e1, ...]`, each entry through `entry`.
fn list<E>(
    f: &mut Formatter<'_>,
    entries: &[E],
    mut entry: impl FnMut(&E, &mut Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    f.write_str("[")?;
    for (k, e) in entries.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        entry(e, f)?;
    }
    f.write_str("]")
}

macro_rules! text_forms {
    ($($trait:ident),*) => {$(
        impl<T> fmt::$trait for ColorVector<T>
        where
            Complex<T>: fmt::$trait,
        {
            fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
                list(f, &self.v, |z, f| fmt::$trait::fmt(z, f))
            }
        }

        impl<T> fmt::$trait for ColorMatrix<T>
        where
            Complex<T>: fmt::$trait,
        {
            fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
                list(f, &self.m, |row, f| list(f, row, |z, f| fmt::$trait::fmt(z, f)))
            }
        }
    )*};
}

text_forms!(Display, LowerExp, UpperExp);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_and_matrices_read_as_lists_of_complex_numbers() {
        let v = ColorVector::new([
            Complex::new(1.0f32, 2.0),
            Complex::new(0.5, -1.0),
            Complex::new(0.0, 0.0),
        ]);
        assert_eq!(format!("{v}"), "[1+2i, 0.5-1i, 0+0i]");
        assert_eq!(format!("{v:.2}"), "[1.00+2.00i, 0.50-1.00i, 0.00+0.00i]");
        let m = ColorMatrix::<f64>::identity();
        assert_eq!(
            format!("{m}"),
            "[[1+0i, 0+0i, 0+0i], [0+0i, 1+0i, 0+0i], [0+0i, 0+0i, 1+0i]]"
        );
        assert_eq!(format!("{:e}", m.m[0][0]), "1e0+0e0i");
    }
}
