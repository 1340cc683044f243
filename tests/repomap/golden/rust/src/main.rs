mod shapes;

use shapes::{Circle, Rect, Shape};

fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

fn main() {
    let shapes: Vec<Box<dyn Shape>> = vec![
        Box::new(Circle { radius: 1.0 }),
        Box::new(Rect { width: 2.0, height: 3.0 }),
    ];
    println!("{}", total_area(&shapes));
}
