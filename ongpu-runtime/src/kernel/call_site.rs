//! What `#[ongpu::kernel]` knows of one kernel, kept in a `static` inside its launcher,
//! together with the modules compiled for it.

use crate::error::Location;
use crate::launch::call_site::DeviceFnInfo;

/// A constant a kernel body names (a `const` or `static` item of a number or bool type): its
/// value is written into the kernel's source as a C++ `constexpr`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used inside an #[ongpu::kernel] body",
    label = "named in the kernel body here",
    note = "names that are not parameters or locals must be constants (`const` items) of the \
            types f32, f64, i8..i64, u8..u64, isize, usize or bool; their value is built into \
            the kernel"
)]
pub trait KernelConst: Sync {
    /// `constexpr TYPE NAME = VALUE;`, the C++ definition of the constant.
    fn cuda_definition(&self, name: &str) -> String;
}

macro_rules! int_const {
    ($($t:ty => $cuda:literal, $suffix:literal;)*) => {$(
        impl KernelConst for $t {
            fn cuda_definition(&self, name: &str) -> String {
                let v = *self as i128;
                // The most negative value has no literal of its own in C++.
                let value = if v < 0 && (v - 1) < <$t>::MIN as i128 {
                    format!("({}{} - 1)", v + 1, $suffix)
                } else {
                    format!("{v}{}", $suffix)
                };
                format!("constexpr {} {name} = ({}){value};", $cuda, $cuda)
            }
        }
    )*};
}

int_const! {
    i8 => "signed char", "";
    i16 => "short", "";
    i32 => "int", "ll";
    i64 => "long long", "ll";
    isize => "long long", "ll";
    u8 => "unsigned char", "u";
    u16 => "unsigned short", "u";
    u32 => "unsigned int", "ull";
    u64 => "unsigned long long", "ull";
    usize => "unsigned long long", "ull";
}

impl KernelConst for bool {
    fn cuda_definition(&self, name: &str) -> String {
        format!("constexpr bool {name} = {self};")
    }
}

fn float_value(v: f64, suffix: &str, builtin: &str) -> String {
    if v.is_nan() {
        format!("__builtin_nan{builtin}(\"\")")
    } else if v.is_infinite() {
        let sign = if v < 0.0 { "-" } else { "" };
        format!("{sign}__builtin_huge_val{builtin}()")
    } else {
        // Rust's `{:e}` prints the shortest digits that read back to the same value.
        format!("{v:e}{suffix}")
    }
}

impl KernelConst for f32 {
    fn cuda_definition(&self, name: &str) -> String {
        // Printed as f32 (shortest f32 digits), so the C++ float literal is the same value.
        let value = if self.is_finite() {
            format!("{self:e}f")
        } else {
            float_value(*self as f64, "f", "f")
        };
        format!("constexpr float {name} = {value};")
    }
}

impl KernelConst for f64 {
    fn cuda_definition(&self, name: &str) -> String {
        format!("constexpr double {name} = {};", float_value(*self, "", ""))
    }
}

/// A constant named by a kernel body: its C++ name and its value.
#[derive(Clone, Copy)]
pub struct ConstRef {
    /// The C++ name the body's translation uses.
    pub cuda_name: &'static str,
    /// The value.
    pub value: &'static dyn KernelConst,
}

impl std::fmt::Debug for ConstRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.value.cuda_definition(self.cuda_name))
    }
}

/// A `shared!` array of a kernel.
#[derive(Debug)]
pub struct SharedDecl {
    /// The Rust name.
    pub name: &'static str,
    /// Its extents, outermost first (`[[f32; 16]; 8]` is `[8, 16]`).
    pub dims: &'static [usize],
    /// The element type's CUDA C++ name.
    pub element: fn() -> String,
    /// Bytes per element.
    pub element_bytes: usize,
}

impl SharedDecl {
    /// Elements in the array.
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }

    /// True for an array of no elements (never: dimensions are at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of shared memory the array takes.
    pub fn bytes(&self) -> usize {
        self.len() * self.element_bytes
    }
}

/// A `shared!` dimension, checked at compile time (the macro evaluates it in a `static`).
pub const fn shared_dim(n: usize) -> usize {
    assert!(n > 0, "a shared! array dimension must be at least 1");
    n
}

/// What the macro knows of one kernel.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel's name.
    pub name: &'static str,
    /// Where the kernel is defined.
    pub location: Location,
    /// Rust names of the parameters, in order.
    pub params: &'static [&'static str],
    /// Their C++ names.
    pub cuda_params: &'static [&'static str],
    /// The translated body: C++ statements.
    pub body: &'static str,
    /// Device functions the body calls.
    pub device_fns: &'static [&'static DeviceFnInfo],
    /// Constants the body names.
    pub consts: &'static [ConstRef],
    /// The `shared!` arrays, in declaration order.
    pub shared: &'static [SharedDecl],
    /// The source line of each `sync_threads()`, in order of appearance.
    pub barrier_lines: &'static [u32],
    /// The formats of the body's prints, if it prints.
    pub prints: Option<crate::print::PrintFormat>,
}

impl KernelInfo {
    /// The name of array `id` in messages: a parameter, or a shared array after them.
    pub(crate) fn array_name(&self, id: usize) -> String {
        match self.params.get(id) {
            Some(p) => format!("parameter `{p}`"),
            None => match self.shared.get(id - self.params.len()) {
                Some(s) => format!("shared array `{}`", s.name),
                None => format!("array #{id}"),
            },
        }
    }

    /// Total bytes of the shared arrays.
    pub fn shared_bytes(&self) -> usize {
        self.shared.iter().map(SharedDecl::bytes).sum()
    }
}

/// One kernel: its facts and the modules compiled for it.
#[derive(Debug)]
pub struct KernelSite {
    /// What the macro knows.
    pub info: KernelInfo,
    #[cfg(feature = "cuda")]
    pub(crate) compiled: super::cuda::Compiled,
}

impl KernelSite {
    /// A kernel with nothing compiled yet.
    pub const fn new(info: KernelInfo) -> Self {
        KernelSite {
            info,
            #[cfg(feature = "cuda")]
            compiled: super::cuda::Compiled::new(),
        }
    }

    /// Where the kernel is defined.
    pub fn location(&self) -> Location {
        self.info.location
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_keep_their_value_and_type() {
        assert_eq!(
            16usize.cuda_definition("T"),
            "constexpr unsigned long long T = (unsigned long long)16ull;"
        );
        assert_eq!(
            i32::MIN.cuda_definition("M"),
            "constexpr int M = (int)(-2147483647ll - 1);"
        );
        assert_eq!(
            i64::MIN.cuda_definition("M"),
            "constexpr long long M = (long long)(-9223372036854775807ll - 1);"
        );
        assert_eq!(0.1f32.cuda_definition("A"), "constexpr float A = 1e-1f;");
        assert_eq!(
            (1.0f64 / 3.0).cuda_definition("B"),
            "constexpr double B = 3.333333333333333e-1;"
        );
        assert!(f32::INFINITY
            .cuda_definition("I")
            .contains("__builtin_huge_valf()"));
        assert_eq!(true.cuda_definition("F"), "constexpr bool F = true;");
    }
}
