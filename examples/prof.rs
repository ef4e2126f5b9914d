fn main() {
    let path = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).map_or(2000, |s| s.parse().unwrap());
    let bytes = std::fs::read(path).unwrap();
    let mut ok = 0;
    for _ in 0..n {
        ok += flatmodel::tflite::Model::parse_structure(std::hint::black_box(&bytes)).is_ok() as usize;
    }
    println!("{ok}");
}
