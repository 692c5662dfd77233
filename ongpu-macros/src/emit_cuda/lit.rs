//! Literals: numbers keep Rust's value and type; an unsuffixed float takes the kernel's real
//! type (`ongpu_real`, or a device function's own precision).

use syn::Lit;

/// The C++ spelling of a numeric or bool literal. `real` is the type of unsuffixed floats.
pub fn literal(l: &Lit, real: &str) -> Option<String> {
    Some(match l {
        Lit::Bool(b) => b.value.to_string(),
        Lit::Int(i) => {
            let digits = i.base10_digits();
            match i.suffix() {
                "" | "i8" | "i16" | "i32" => digits.to_string(),
                "u8" | "u16" | "u32" => format!("{digits}u"),
                "i64" | "isize" => format!("{digits}ll"),
                "u64" | "usize" => format!("{digits}ull"),
                "f32" => format!("{digits}.0f"),
                "f64" => format!("{digits}.0"),
                _ => return None,
            }
        }
        Lit::Float(f) => {
            let mut digits = f.base10_digits().to_string();
            if !digits.contains(['.', 'e', 'E']) {
                digits.push_str(".0");
            }
            match f.suffix() {
                "" => format!("{real}({digits})"),
                "f32" => format!("{digits}f"),
                "f64" => digits,
                _ => return None,
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> String {
        literal(&syn::parse_str(s).unwrap(), "ongpu_real").unwrap()
    }

    #[test]
    fn numbers_keep_value_and_type() {
        assert_eq!(lit("1_000"), "1000");
        assert_eq!(lit("0xff_u32"), "255u");
        assert_eq!(lit("7usize"), "7ull");
        assert_eq!(lit("2f32"), "2.0f");
        assert_eq!(lit("1.5"), "ongpu_real(1.5)");
        assert_eq!(lit("1e-3f32"), "1e-3f");
        assert_eq!(lit("2.5f64"), "2.5");
        assert_eq!(lit("true"), "true");
    }
}
