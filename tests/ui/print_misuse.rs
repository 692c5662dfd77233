use ongpu::prelude::*;

#[ongpu::device]
fn noisy(x: f32) -> f32 {
    println!("{}", x);
    x
}

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!(|i| {
        println!("{} {}", x);
        println!("unused", i);
        println!("{:.*}", 3, x);
        println!("{x", );
        println!(x);
        x = noisy(1.0);
    });
}
