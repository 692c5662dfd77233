//! Literals. Numbers keep Rust's value and type. An unsuffixed float takes the type Rust
//! would infer: that of the operand it meets (its *partner*), else the kernel's real type.

use syn::Lit;

/// What decides the type of an unsuffixed float literal.
#[derive(Debug, Clone)]
pub enum Partner {
    /// Nothing nearby: the default real type.
    None,
    /// A C++ type (`float`, `ongpu::complex<double>`).
    Type(String),
    /// A C++ expression whose type decides (`x` in `x * 2.0`).
    Expr(String),
}

/// `digits` as an f32 literal (infinity when out of f32's range: only an f64 context can
/// then select it, since rustc rejects such an f32 literal).
fn f32_spelling(digits: &str) -> String {
    match digits.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() > f32::MAX as f64 => {
            "__int_as_float(0x7f800000)".to_string()
        }
        _ => format!("{digits}f"),
    }
}

/// The C++ spelling of a float literal of digits `digits` typed by `partner`, with
/// `default_real` the type when no partner decides.
pub fn unsuffixed_float(digits: &str, partner: &Partner, default_real: &str) -> String {
    let ty = match partner {
        Partner::None => default_real.to_string(),
        Partner::Type(t) => t.clone(),
        Partner::Expr(e) if e.contains("[&]") => default_real.to_string(),
        Partner::Expr(e) => format!("decltype({e})"),
    };
    match ty.as_str() {
        "float" => f32_spelling(digits),
        "double" => digits.to_string(),
        _ => format!(
            "ongpu::lit<{ty}, {default_real}>({}, {digits})",
            f32_spelling(digits)
        ),
    }
}

/// The C++ spelling of an unsuffixed integer literal of decimal digits `digits`, typed by
/// `partner` (without one, `int` as in Rust, or wider where C++ needs it to hold the value).
pub fn int_literal(digits: &str, partner: &Partner) -> String {
    let wide = digits
        .parse::<u128>()
        .map_or(true, |v| v > i64::MAX as u128);
    let plain = if wide {
        format!("{digits}ull")
    } else {
        digits.to_string()
    };
    match partner {
        Partner::Type(t) => match super::ints::int_suffix(t) {
            Some(s) if !wide => format!("{digits}{s}"),
            _ => int_value(&plain, partner),
        },
        _ => int_value(&plain, partner),
    }
}

/// `value` (the C++ of an untyped integer) converted to the type `partner` gives it.
pub fn int_value(value: &str, partner: &Partner) -> String {
    match partner {
        Partner::None => value.to_string(),
        Partner::Type(t) if super::ints::is_int_name(t) => format!("(({t}){value})"),
        Partner::Type(t) => format!("ongpu::lit_int<{t}>({value})"),
        Partner::Expr(e) if e.contains("[&]") => value.to_string(),
        Partner::Expr(e) => format!("ongpu::lit_int<decltype({e})>({value})"),
    }
}

/// The C++ spelling of a numeric or bool literal.
pub fn literal(l: &Lit, partner: &Partner, default_real: &str) -> Option<String> {
    Some(match l {
        Lit::Bool(b) => b.value.to_string(),
        Lit::Int(i) => {
            let digits = i.base10_digits();
            match i.suffix() {
                "" => int_literal(digits, partner),
                "i8" | "i16" | "i32" => digits.to_string(),
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
                "" => unsuffixed_float(&digits, partner, default_real),
                "f32" => f32_spelling(&digits),
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

    fn lit(s: &str, p: Partner) -> String {
        literal(&syn::parse_str(s).unwrap(), &p, "ongpu_real").unwrap()
    }

    #[test]
    fn numbers_keep_value_and_type() {
        assert_eq!(lit("1_000", Partner::None), "1000");
        assert_eq!(lit("0xff_u32", Partner::None), "255u");
        assert_eq!(lit("7usize", Partner::None), "7ull");
        assert_eq!(lit("2f32", Partner::None), "2.0f");
        assert_eq!(lit("1e-3f32", Partner::None), "1e-3f");
        assert_eq!(lit("2.5f64", Partner::None), "2.5");
        assert_eq!(lit("true", Partner::None), "true");
    }

    #[test]
    fn unsuffixed_floats_follow_their_partner() {
        assert_eq!(
            lit("1.5", Partner::None),
            "ongpu::lit<ongpu_real, ongpu_real>(1.5f, 1.5)"
        );
        assert_eq!(lit("0.1", Partner::Type("float".into())), "0.1f");
        assert_eq!(lit("0.1", Partner::Type("double".into())), "0.1");
        assert_eq!(
            lit("0.5", Partner::Expr("x".into())),
            "ongpu::lit<decltype(x), ongpu_real>(0.5f, 0.5)"
        );
        assert_eq!(lit("1e300", Partner::Type("double".into())), "1e300");
        assert_eq!(
            lit("1e300", Partner::Expr("d".into())),
            "ongpu::lit<decltype(d), ongpu_real>(__int_as_float(0x7f800000), 1e300)"
        );
    }
}
