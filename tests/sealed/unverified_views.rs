// Ways outside code could try to view bytes the verifier never saw; each must not compile.
use flatmodel::wire::{FromStruct, FromTable, Table};

fn main() {
    let bytes = [0u8; 64];

    // A table at an arbitrary position.
    let _ = Table::at(&bytes, 4);

    // A model over another verified table (or over any `Table`): the constructor needs the
    // crate's seal, which outside code cannot name.
    let model = flatmodel::tflite::Model::parse(&bytes).unwrap();
    let _ = flatmodel::tflite::Model::from_table(model.raw(), flatmodel::wire::Seal);

    // A struct view over bytes of any length.
    let _ = <flatmodel::tflite::Int32Vector<'_> as FromTable<'_>>::from_table(model.raw());
    let _ = <flatmodel::cvimodel::Version<'_> as FromStruct<'_>>::from_bytes(&bytes[..1]);

    // A field read through the raw table at a slot of any kind.
    let _ = model.raw().string(0);
}

// A view type of its own, to be handed a table.
#[derive(Clone, Copy)]
struct Mine<'a>(Table<'a>);

impl<'a> FromTable<'a> for Mine<'a> {
    fn from_table(table: Table<'a>) -> Self {
        Mine(table)
    }
    fn as_table(&self) -> Table<'a> {
        self.0
    }
}

// A schema declared outside the crate.
flatmodel::fb_table! { Outside = 0 { name "name" @0 NAME_SLOT NAME_NAME: string() } }
