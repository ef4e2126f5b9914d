//! The model's buffers as the rules read them: straight from the raw `Buffer` tables, whose
//! fields TFLite and Circle store in the same slots (a test checks both schemas), reading a
//! buffer's `offset` and `size` only when it has no `data`. The rules read a buffer for every
//! buffer and every tensor, so this is one of their hottest paths.

use crate::wire::{Table, TableVector};

/// `Buffer.data`'s slot.
const DATA: u16 = 0;
/// `Buffer.offset`'s slot.
const OFFSET: u16 = 1;
/// `Buffer.size`'s slot.
const SIZE: u16 = 2;

/// Where a buffer's bytes are, as [`super::BufferRef`] tells it.
#[derive(Clone, Copy)]
pub(crate) enum Stored<'a> {
    /// No data: no `data` vector, and an `offset` of 0 or 1 (writers' placeholders).
    Nothing,
    /// The `data` vector (perhaps empty).
    Inline(&'a [u8]),
    /// No `data` vector; `size` bytes from byte `offset` (above 1) of the file.
    External {
        /// `Buffer.offset`.
        offset: u64,
        /// `Buffer.size`.
        size: u64,
    },
}

/// `Model.buffers`, as raw tables.
#[derive(Clone, Copy)]
pub(crate) struct Buffers<'a>(TableVector<'a, Table<'a>>);

impl<'a> Buffers<'a> {
    /// The buffers of `list` (absent: none).
    pub(crate) fn new(list: Option<TableVector<'a, Table<'a>>>) -> Self {
        Buffers(list.unwrap_or_default())
    }

    /// How many buffers there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Where buffer `index`'s bytes are; `None` past the end.
    #[inline]
    pub(crate) fn stored(&self, index: usize) -> Option<Stored<'a>> {
        let buffer = self.0.get(index)?;
        if let Some((data, _)) = buffer.raw_vector(DATA, 1) {
            return Some(Stored::Inline(data));
        }
        Some(match buffer.scalar::<u64>(OFFSET, 0) {
            offset @ 2.. => Stored::External { offset, size: buffer.scalar::<u64>(SIZE, 0) },
            _ => Stored::Nothing,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{DATA, OFFSET, SIZE};

    #[test]
    fn the_buffer_slots_are_both_schemas() {
        for (data, offset, size) in [
            (crate::tflite::Buffer::DATA_SLOT, crate::tflite::Buffer::OFFSET_SLOT, crate::tflite::Buffer::SIZE_SLOT),
            (crate::circle::Buffer::DATA_SLOT, crate::circle::Buffer::OFFSET_SLOT, crate::circle::Buffer::SIZE_SLOT),
        ] {
            assert_eq!((data, offset, size), (DATA, OFFSET, SIZE));
        }
    }
}
