#!/usr/bin/env python3
"""Writes tests/differential/generated.rs: random on_gpu! bodies (integer and float
arithmetic with every operator, casts, unsuffixed literals, shifts by constants, `%` on
negatives, maths functions, colour types, if/else, loops), each as a function that runs
the body with on_gpu! and, as the reference, the same statements as a plain Rust loop.
The harness (tests/differential/main.rs) compares them bit for bit on the CPU backend,
compiles every kernel with NVRTC, and compares the GPU with the CPU where there is one.

Values stay in ranges where no integer operation overflows and no divisor is zero, so a
body means the same in debug and release builds. Run from the repository root:
    python3 scripts/gen_differential.py
"""
import random
import re

SEED = 20261123
CASES = 520
PER_FUNCTION = 65
OUT = "tests/differential/generated.rs"

rng = random.Random(SEED)
LIMIT = 2**31 - 1


def lit_int():
    return str(rng.randint(0, 99))


def int_expr(depth):
    """(text, bound on |value|) of an i32 expression over a, b, literals."""
    if depth == 0 or rng.random() < 0.25:
        k = rng.randrange(5)
        if k == 0:
            return "a", 1000
        if k == 1:
            return "b", 40
        if k == 2:
            return "(f as i32)", 10
        v = lit_int()
        return v, int(v)
    k = rng.randrange(9)
    l, lb = int_expr(depth - 1)
    if k in (5, 6) and (l.startswith("(if") or not re.search(r"\b[abf]\b", l)):
        # A method's receiver needs a type: a literal alone has none.
        l, lb = "a", 1000
    if k in (0, 1, 2):
        r, rb = int_expr(depth - 1)
        op = "+-*"[k]
        bound = lb + rb if op != "*" else lb * rb
        if bound > LIMIT:
            return l, lb
        return f"({l} {op} {r})", bound
    if k in (3, 4):
        op = "/%"[k - 3]
        d = rng.choice(["b", str(rng.randint(1, 9)), f"(-{rng.randint(1, 9)})"])
        return f"({l} {op} {d})", lb
    if k == 5:
        return f"{l}.abs()", lb
    if k == 6:
        r, rb = int_expr(depth - 1)
        m = rng.choice(["min", "max"])
        return f"{l}.{m}({r})", max(lb, rb)
    if k == 7:
        r, rb = int_expr(depth - 1)
        c = rng.choice(["a < b", "a >= 0", "b != 3", "(a % 2) == 0"])
        return f"(if {c} {{ {l} }} else {{ {r} }})", max(lb, rb)
    op = rng.choice(["&", "|", "^"])
    r, rb = int_expr(depth - 1)
    return f"({l} {op} {r})", max(lb, rb) * 2


def u32_expr(depth):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["u", "(a as u32)", lit_int(), "0xF0F0_F0F0u32", "(b as u32)"])
    k = rng.randrange(7)
    l = u32_expr(depth - 1)
    if k == 0:
        return f"({l} << {rng.randint(0, 31)})"
    if k == 1:
        return f"({l} >> {rng.randint(0, 31)})"
    if k == 2:
        return f"!{l}"
    if k == 3:
        return f"({l} {rng.choice(['/', '%'])} {rng.randint(1, 77)})"
    if k == 4:
        return f"({l} {rng.choice(['&', '|', '^'])} {u32_expr(depth - 1)})"
    if k == 5:
        return f"({l} >> (b as u32 & 31))"
    return f"({l} / 16 + {u32_expr(depth - 1)} / 16)"


def float_expr(depth, t):
    """An expression of type t (f32 or f64) over f, g, d, literals."""
    base = ["f", "g", "(a as f32)"] if t == "f32" else ["d", "(f as f64)", "(g as f64)"]
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.3:
            return rng.choice(["0.5", "2.0", "1.25", "0.1", "3.0", "1e-3"])
        return rng.choice(base)
    k = rng.randrange(10)
    l = float_expr(depth - 1, t)
    pos = "g" if t == "f32" else "(g as f64)"
    if k in (5, 6, 7) and (l.startswith("(if") or not re.search(r"\b[adfg]\b", l)):
        # A method's receiver needs a type: a literal alone has none.
        l = rng.choice(base)
    if k in (0, 1, 2):
        return f"({l} {'+-*'[k]} {float_expr(depth - 1, t)})"
    if k == 3:
        return f"({l} / {pos})"
    if k == 4:
        return f"({l} % {pos})"
    if k == 5:
        return f"{l}.abs()"
    if k == 6:
        return f"{l}.{rng.choice(['min', 'max'])}({float_expr(depth - 1, t)})"
    if k == 7:
        fn = rng.choice(["sqrt", "sin", "cos", "exp", "floor", "round"])
        arg = f"{l}.abs()" if fn == "sqrt" else (f"({l} * 0.1).min(20.0)" if fn == "exp" else l)
        return f"({arg}).{fn}()"
    if k == 8:
        return f"(if {l} > {pos} {{ {l} }} else {{ -{pos} }})"
    return f"({l} as {'f64' if t == 'f32' else 'f32'} as {t})"


def literal_body():
    k = rng.randrange(4)
    s1, s2 = rng.randint(0, 62), rng.randint(0, 31)
    if k == 0:
        return "ou", f"let t: u64 = 1 << {s1}; ou = (t >> {s2}) as u32 ^ u;"
    if k == 1:
        x, y = rng.randint(1, 3_000_000), rng.randint(1, 3_000_000)
        return "oi", f"let big: i64 = {x} * {y}; oi = (big % 100_003) as i32 + a;"
    if k == 2:
        return "ou", f"let k = 1; let w: u64 = (k << {s1}) + (u as u64); ou = (w >> {s2 % 32}) as u32;"
    n = rng.randint(1, 8)
    return "oi", f"let mut acc = 0; for k in 0..{n} {{ acc += a * k - (k << 2); }} oi = acc;"


def colour_body():
    k = rng.randrange(3)
    e = float_expr(1, "f32")
    if k == 0:
        return "of", f"let m = ColorMatrix::<f32>::identity() * {e}; of = m.trace().re + m[1][1].im;"
    if k == 1:
        return "of", (f"let z = Complex::new({e}, g); let v = ColorVector::new([z, z.conj(), z * z]); "
                      f"of = v.norm2() + v[2].re;")
    return "of", (f"let mut m = ColorMatrix::<f32>::zero(); m[0][2] = Complex::new(f, {e}); "
                  f"let p = m * m.adj(); of = p.trace().re - p[0][0].im;")


def body():
    k = rng.randrange(10)
    if k < 3:
        e, _ = int_expr(3)
        return "oi", f"oi = {e};"
    if k < 5:
        return "ou", f"ou = {u32_expr(3)};"
    if k < 7:
        t = rng.choice(["f32", "f64"])
        out = "of" if t == "f32" else "od"
        return out, f"let x: {t} = {float_expr(3, t)}; {out} = x;"
    if k < 9:
        return literal_body()
    return colour_body()


def case(n, out, text):
    ty = {"oi": "i32", "ou": "u32", "of": "f32", "od": "f64"}[out]
    quoted = text.replace('"', '\\"')
    return f"""
/// `{text}`
#[allow(unused_variables, unused_mut, unused_parens, unused_assignments, clippy::all)]
fn case_{n}(i: &Inputs) -> Outcome {{
    let (a, b, u, f, g, d) = (&i.a, &i.b, &i.u, &i.f, &i.g, &i.d);
    let mut {out}: Field<{ty}> = Field::zeros(i.n);
    let run = on_gpu!({{ {text} }});
    let want: Vec<{ty}> = (0..i.n)
        .map(|s| {{
            let (a, b, u, f, g, d) = (i.av[s], i.bv[s], i.uv[s], i.fv[s], i.gv[s], i.dv[s]);
            let mut {out}: {ty} = Default::default();
            {{ {text} }}
            {out}
        }})
        .collect();
    outcome({n}, "{quoted}", run, {out}.to_vec(), want)
}}
"""


def main():
    cases = [body() for _ in range(CASES)]
    out = ["// Generated by scripts/gen_differential.py (seed %d): do not edit.\n" % SEED,
           "use super::{outcome, Case, Inputs, Outcome};\nuse ongpu::prelude::*;\n"]
    for n, (o, t) in enumerate(cases):
        out.append(case(n, o, t))
    groups = [list(range(k, min(k + PER_FUNCTION, CASES))) for k in range(0, CASES, PER_FUNCTION)]
    out.append("\n/// The cases, in groups (one test function each).\n")
    out.append("pub const GROUPS: &[&[Case]] = &[\n")
    for g in groups:
        out.append("    &[" + ", ".join(f"case_{k}" for k in g) + "],\n")
    out.append("];\n")
    with open(OUT, "w") as fh:
        fh.write("".join(out))


if __name__ == "__main__":
    main()
