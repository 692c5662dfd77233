//! What the body language supports, in one place: maths functions, methods, types, constant
//! paths, and the summary that error messages quote.

/// The summary quoted by "not supported" errors. It is written out from the tables below,
/// so that it names exactly what the lowering accepts.
pub const BODY_LANGUAGE: BodyLanguage = BodyLanguage;

/// See [`BODY_LANGUAGE`].
pub struct BodyLanguage;

impl std::fmt::Display for BodyLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let numbers: Vec<&str> = SCALAR_TYPES
            .iter()
            .map(|&(t, _)| t)
            .filter(|&t| t != "bool")
            .collect();
        let functions: Vec<&str> = MATH_FUNCTIONS.iter().map(|&(m, _)| m).collect();
        let fields: Vec<String> = FIELDS.iter().map(|m| format!(".{m}")).collect();
        let constructors: Vec<String> = ASSOCIATED_FUNCTIONS
            .iter()
            .map(|(t, g, _)| format!("{t}::{g}"))
            .collect();
        write!(
            f,
            "a body can use `let` (optionally typed), `=` and `op=` assignments, arithmetic, \
             bitwise and comparison operators, `if`/`else`, `for k in a..b`, `as` casts between \
             the number types {}, numeric and bool literals, the maths functions {} (as \
             `sqrt(x)`, `x.sqrt()` or `f32::sqrt(x)`), the methods {}, the fields {}, indexing \
             `m[i][j]`, the constructors {}, constants such as `f32::MAX` and \
             `std::f64::consts::PI`, and calls of functions marked #[ongpu::device]",
            numbers.join(" "),
            functions.join(" "),
            method_names(),
            fields.join(" "),
            constructors.join(" "),
        )
    }
}

/// Maths functions callable as `name(args)` (routed to `ongpu::math` on the CPU and the
/// prelude's `ongpu::name` in CUDA), with their argument counts.
pub const MATH_FUNCTIONS: &[(&str, usize)] = &[
    ("sqrt", 1),
    ("exp", 1),
    ("ln", 1),
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("abs", 1),
    ("min", 2),
    ("max", 2),
    ("floor", 1),
    ("ceil", 1),
    ("round", 1),
    ("trunc", 1),
    ("powf", 2),
    ("powi", 2),
    ("atan2", 2),
    ("hypot", 2),
];

/// Methods: `(name, arguments besides the receiver)`; `x.name(a)` becomes
/// `ongpu::name(x, a)` in CUDA. The float methods have the meaning of Rust's `f32`/`f64`
/// methods; the others are those of `Complex`, `ColorVector` and `ColorMatrix`.
pub const METHODS: &[(&str, usize)] = &[
    ("sqrt", 0),
    ("exp", 0),
    ("ln", 0),
    ("log10", 0),
    ("log2", 0),
    ("sin", 0),
    ("cos", 0),
    ("tan", 0),
    ("abs", 0),
    ("floor", 0),
    ("ceil", 0),
    ("round", 0),
    ("trunc", 0),
    ("min", 1),
    ("max", 1),
    ("powf", 1),
    ("powi", 1),
    ("atan2", 1),
    ("hypot", 1),
    ("mul_add", 2),
    ("adj", 0),
    ("conj", 0),
    ("times_i", 0),
    ("times_minus_i", 0),
    ("trace", 0),
    ("norm2", 0),
    ("transpose", 0),
    ("norm_sqr", 0),
    ("norm", 0),
    ("arg", 0),
    ("scale", 1),
    ("unscale", 1),
    ("coord", 2),
    ("parity", 1),
    ("whole_index", 1),
    ("dot", 1),
    ("bits", 2),
    ("uniform_f32", 2),
    ("uniform_f64", 2),
    ("normal_f32", 2),
    ("normal_f64", 2),
    ("widen", 0),
    ("narrow", 0),
    ("convert", 0),
    ("to_f16", 0),
    ("to_bf16", 0),
    ("to_f32", 0),
    ("to_f64", 0),
];

/// The functions of `#[ongpu::kernel]` bodies, with their argument counts (`x`, `y`, `z` of
/// the index functions are fields of their result).
pub const KERNEL_INTRINSICS: &[(&str, usize)] = &[
    ("thread_idx", 0),
    ("block_idx", 0),
    ("block_dim", 0),
    ("grid_dim", 0),
    ("sync_threads", 0),
    ("thread_fence", 0),
    ("atomic_add", 2),
    ("atomic_sub", 2),
    ("atomic_min", 2),
    ("atomic_max", 2),
    ("atomic_exch", 2),
    ("atomic_cas", 3),
];

/// The kernel intrinsics a device function may call too: the block's barrier and the
/// memory fence (statements that need nothing of the kernel's).
pub const DEVICE_FN_INTRINSICS: &[&str] = &["sync_threads", "thread_fence"];

/// True if a device function may call the intrinsic `name`.
pub fn device_fn_intrinsic(name: &str) -> bool {
    DEVICE_FN_INTRINSICS.contains(&name)
}

/// Argument count of a kernel intrinsic.
pub fn kernel_intrinsic(name: &str) -> Option<usize> {
    KERNEL_INTRINSICS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, a)| a)
}

/// Suffixes of integer literals (`2f32` is a float).
pub const INT_SUFFIXES: &[&str] = &[
    "", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
];

/// Suffixes of float literals.
pub const FLOAT_SUFFIXES: &[&str] = &["", "f32", "f64"];

/// Struct fields a body may read or assign.
pub const FIELDS: &[&str] = &["re", "im", "m", "v"];

/// The names of the methods, for messages.
pub fn method_names() -> String {
    METHODS
        .iter()
        .map(|(m, _)| format!(".{m}()"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Argument count of a maths function.
pub fn math_function(name: &str) -> Option<usize> {
    MATH_FUNCTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, a)| a)
}

/// Argument count of a method (receiver excluded).
/// The vector accesses of a kernel's arrays (`a.load4(q)`, `c.store4(q, v)`: elements
/// 4q..4q+3) and their argument counts.
pub const VECTOR_METHODS: &[(&str, usize)] = &[("load4", 1), ("store4", 2)];

/// The argument count of a vector access of a kernel's array, if `name` is one.
pub fn vector_method(name: &str) -> Option<usize> {
    VECTOR_METHODS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, a)| a)
}

/// The argument count of a supported method, if `name` is one.
pub fn method(name: &str) -> Option<usize> {
    METHODS.iter().find(|(n, _)| *n == name).map(|&(_, a)| a)
}

/// The Rust scalar types a body may name, with their CUDA C++ names.
pub const SCALAR_TYPES: &[(&str, &str)] = &[
    ("f32", "float"),
    ("f64", "double"),
    ("i8", "signed char"),
    ("i16", "short"),
    ("i32", "int"),
    ("i64", "long long"),
    ("isize", "long long"),
    ("u8", "unsigned char"),
    ("u16", "unsigned short"),
    ("u32", "unsigned int"),
    ("u64", "unsigned long long"),
    ("usize", "unsigned long long"),
    ("bool", "bool"),
];

/// The types an `as` cast may name: the number types of [`SCALAR_TYPES`] (Rust has no cast
/// to `bool`), for messages.
pub fn cast_targets() -> String {
    SCALAR_TYPES
        .iter()
        .map(|(t, _)| *t)
        .filter(|&t| t != "bool")
        .collect::<Vec<_>>()
        .join(", ")
}

/// The CUDA C++ name of a Rust scalar type.
pub fn scalar_type(name: &str) -> Option<&'static str> {
    SCALAR_TYPES
        .iter()
        .find(|(t, _)| *t == name)
        .map(|&(_, c)| c)
}

/// The prelude's name of a generic lattice type.
pub fn generic_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "Complex" => "ongpu::complex",
        "ColorVector" => "ongpu::ColorVector",
        "ColorMatrix" => "ongpu::ColorMatrix",
        _ => return None,
    })
}

/// Value types that are not generic, with their prelude names: a device function may take
/// them (a captured generator or lattice passed on).
pub const VALUE_TYPES: &[(&str, &str)] =
    &[("Philox", "ongpu::Philox"), ("Lattice", "ongpu::Lattice")];

/// The prelude's name of a non-generic value type.
pub fn value_type(name: &str) -> Option<&'static str> {
    VALUE_TYPES
        .iter()
        .find(|(t, _)| *t == name)
        .map(|&(_, c)| c)
}

/// Associated functions of the lattice types: `(type, function, argument count)`.
pub const ASSOCIATED_FUNCTIONS: &[(&str, &str, usize)] = &[
    ("Complex", "new", 2),
    ("ColorMatrix", "identity", 0),
    ("ColorMatrix", "zero", 0),
    ("ColorVector", "zero", 0),
    ("ColorVector", "new", 1),
    ("ColorMatrix", "new", 1),
];

/// Constructors whose argument is an array literal of complex numbers, with the array's
/// depth: `ColorVector::new([a, b, c])`, `ColorMatrix::new([[a, b, c], [d, e, f], [g, h, i]])`.
pub const ARRAY_CONSTRUCTORS: &[(&str, usize, &str)] = &[
    ("ColorVector", 1, "ongpu::make_color_vector"),
    ("ColorMatrix", 2, "ongpu::make_color_matrix"),
];

/// The array depth and C++ function of `Type::new` if it is an array constructor.
pub fn array_constructor(path: &syn::Path) -> Option<(usize, &'static str)> {
    let n = path.segments.len();
    if n < 2 || path.segments[n - 1].ident != "new" {
        return None;
    }
    let ty = path.segments[n - 2].ident.to_string();
    ARRAY_CONSTRUCTORS
        .iter()
        .find(|(t, _, _)| *t == ty)
        .map(|&(_, depth, f)| (depth, f))
}

/// The CUDA C++ value of a constant path (`f32::MAX`, `std::f64::consts::PI`), given the
/// path's last two segments (`["f32", "MAX"]`) or, for `consts`, the type and the name.
pub fn constant(ty: &str, name: &str) -> Option<&'static str> {
    Some(match (ty, name) {
        ("f32", "MAX") => "3.40282347e+38f",
        ("f32", "MIN") => "-3.40282347e+38f",
        ("f32", "MIN_POSITIVE") => "1.17549435e-38f",
        ("f32", "EPSILON") => "1.1920929e-7f",
        ("f32", "INFINITY") => "__int_as_float(0x7f800000)",
        ("f32", "NEG_INFINITY") => "__int_as_float(0xff800000)",
        ("f32", "NAN") => "__int_as_float(0x7fc00000)",
        ("f64", "MAX") => "1.7976931348623157e+308",
        ("f64", "MIN") => "-1.7976931348623157e+308",
        ("f64", "MIN_POSITIVE") => "2.2250738585072014e-308",
        ("f64", "EPSILON") => "2.220446049250313e-16",
        ("f64", "INFINITY") => "__longlong_as_double(0x7ff0000000000000ll)",
        ("f64", "NEG_INFINITY") => "__longlong_as_double(0xfff0000000000000ll)",
        ("f64", "NAN") => "__longlong_as_double(0x7ff8000000000000ll)",
        ("f32", "PI") => "3.14159265358979323846f",
        ("f32", "TAU") => "6.28318530717958647692f",
        ("f32", "E") => "2.71828182845904523536f",
        ("f32", "SQRT_2") => "1.41421356237309504880f",
        ("f32", "LN_2") => "0.693147180559945309417f",
        ("f32", "FRAC_PI_2") => "1.57079632679489661923f",
        ("f64", "PI") => "3.14159265358979323846",
        ("f64", "TAU") => "6.28318530717958647692",
        ("f64", "E") => "2.71828182845904523536",
        ("f64", "SQRT_2") => "1.41421356237309504880",
        ("f64", "LN_2") => "0.693147180559945309417",
        ("f64", "FRAC_PI_2") => "1.57079632679489661923",
        ("i32", "MAX") => "2147483647",
        ("i32", "MIN") => "(-2147483647 - 1)",
        ("u32", "MAX") => "4294967295u",
        ("u32", "MIN") => "0u",
        ("i64", "MAX") => "9223372036854775807ll",
        ("i64", "MIN") => "(-9223372036854775807ll - 1)",
        ("u64", "MAX") => "18446744073709551615ull",
        ("usize", "MAX") => "18446744073709551615ull",
        _ => return None,
    })
}

/// The C++ value of a constant path (`f32::MAX`, `std::f64::consts::PI`), if it is one.
pub fn constant_path(path: &syn::Path) -> Option<&'static str> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let n = segs.len();
    if n < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let (ty, name) = if n >= 3 && segs[n - 2] == "consts" {
        (&segs[n - 3], &segs[n - 1])
    } else {
        (&segs[n - 2], &segs[n - 1])
    };
    constant(ty, name)
}

/// The argument count of a supported associated function (`Complex::new`, `f32::sqrt`).
pub fn associated_call_arity(path: &syn::Path) -> Option<usize> {
    let n = path.segments.len();
    if n < 2 {
        return None;
    }
    let ty = path.segments[n - 2].ident.to_string();
    let f = path.segments[n - 1].ident.to_string();
    if let Some(&(_, _, a)) = ASSOCIATED_FUNCTIONS
        .iter()
        .find(|(t, g, _)| *t == ty && *g == f)
    {
        return Some(a);
    }
    if matches!(ty.as_str(), "f32" | "f64") {
        return method(&f)
            .filter(|_| math_function(&f).is_some() || f == "mul_add")
            .map(|a| a + 1);
    }
    None
}

/// `+=` and its siblings.
pub fn is_compound_assign(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::AddAssign(_)
            | syn::BinOp::SubAssign(_)
            | syn::BinOp::MulAssign(_)
            | syn::BinOp::DivAssign(_)
            | syn::BinOp::RemAssign(_)
            | syn::BinOp::BitXorAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_)
    )
}
