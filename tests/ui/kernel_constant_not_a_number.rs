const NAME: &str = "ongpu";

#[ongpu::kernel]
fn k(out: &mut [u32]) {
    let _name = NAME;
    out[0] = 1;
}

fn main() {}
