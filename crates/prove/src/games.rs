//! Small games coded in Rust, for tests and benchmarks: [`TicTacToe`], [`Nim`], the
//! single-player [`LightsOut`] and [`GridWalk`], a general-sum race full of transpositions.
//!
//! They follow GDL conventions: every role moves every step, and the role not in control plays
//! a noop ([`Turn`]).

use crate::model::GameModel;

/// A move under the GDL convention of turns: the role in control plays a move of the game,
/// every other role a noop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn<M> {
    /// A move of the role in control.
    Play(M),
    /// The move of a role not in control.
    Noop,
}

impl<M: Copy> Turn<M> {
    /// Pushes `role`'s legal moves to `out` when `mover` is in control and may play `moves`.
    fn legal(role: usize, mover: usize, moves: impl IntoIterator<Item = M>, out: &mut Vec<Self>) {
        if role == mover {
            out.extend(moves.into_iter().map(Turn::Play));
        } else {
            out.push(Turn::Noop);
        }
    }

    /// The move the role in control, `mover`, plays in `joint` (`None`: it played a noop).
    fn played(joint: &[Self], mover: usize) -> Option<M> {
        match joint[mover] {
            Turn::Play(m) => Some(m),
            Turn::Noop => None,
        }
    }
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// Tic-tac-toe: role 0 (x) starts; goal 100 for a line, 0 against one, 50 for a full board.
#[derive(Clone, Copy, Debug, Default)]
pub struct TicTacToe;

/// A tic-tac-toe position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// Cells in row order: 0 empty, 1 x (role 0), 2 o (role 1).
    pub cells: [u8; 9],
    /// Whether role 1 (o) is to move.
    pub o_to_move: bool,
}

impl Board {
    /// The role owning a complete line, if any.
    pub fn winner(&self) -> Option<usize> {
        LINES.iter().find_map(|line| {
            let mark = self.cells[line[0]];
            (mark != 0 && line.iter().all(|&c| self.cells[c] == mark))
                .then(|| usize::from(mark - 1))
        })
    }

    fn mover(&self) -> usize {
        usize::from(self.o_to_move)
    }
}

/// A tic-tac-toe move: the cell marked (0..9, row order).
pub type Mark = Turn<u8>;

impl GameModel for TicTacToe {
    type State = Board;
    type Move = Mark;

    fn num_roles(&self) -> usize {
        2
    }

    fn initial_state(&self) -> Board {
        Board::default()
    }

    fn is_terminal(&self, board: &Board) -> bool {
        board.winner().is_some() || board.cells.iter().all(|&c| c != 0)
    }

    fn goal(&self, board: &Board, role: usize) -> u8 {
        match board.winner() {
            Some(winner) if winner == role => 100,
            Some(_) => 0,
            None => 50,
        }
    }

    fn legal_moves(&self, board: &Board, role: usize, out: &mut Vec<Mark>) {
        let empty = (0..9u8).filter(|&c| board.cells[usize::from(c)] == 0);
        Turn::legal(role, board.mover(), empty, out);
    }

    fn next_state(&self, board: &Board, joint: &[Mark]) -> Board {
        let mover = board.mover();
        let mut next = *board;
        if let Some(cell) = Turn::played(joint, mover) {
            next.cells[usize::from(cell)] = mover as u8 + 1;
        }
        next.o_to_move = !board.o_to_move;
        next
    }

    fn goal_values(&self, _role: usize) -> Vec<u8> {
        vec![0, 50, 100]
    }
}

/// The most heaps of a [`Nim`] game.
pub const MAX_HEAPS: usize = 8;

/// Nim: take any positive number of tokens from one heap; whoever takes the last token wins
/// (goal 100, the other 0). Role 0 starts.
#[derive(Clone, Debug)]
pub struct Nim {
    heaps: Vec<u8>,
}

/// A Nim position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimState {
    /// Tokens per heap (unused heaps are 0).
    pub heaps: [u8; MAX_HEAPS],
    /// The role to move.
    pub mover: u8,
}

/// The move of the Nim role in control: take `count` tokens from heap `heap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Take {
    /// The heap.
    pub heap: u8,
    /// How many tokens.
    pub count: u8,
}

/// A Nim move.
pub type NimMove = Turn<Take>;

impl Nim {
    /// Nim starting from `heaps` (at most [`MAX_HEAPS`]).
    pub fn new(heaps: &[u8]) -> Nim {
        assert!(heaps.len() <= MAX_HEAPS, "at most {MAX_HEAPS} heaps");
        Nim {
            heaps: heaps.to_vec(),
        }
    }

    /// The position with `heaps` and `mover` to move.
    pub fn state(&self, heaps: &[u8], mover: usize) -> NimState {
        let mut state = NimState {
            heaps: [0; MAX_HEAPS],
            mover: mover as u8,
        };
        state.heaps[..heaps.len()].copy_from_slice(heaps);
        state
    }
}

impl GameModel for Nim {
    type State = NimState;
    type Move = NimMove;

    fn num_roles(&self) -> usize {
        2
    }

    fn initial_state(&self) -> NimState {
        self.state(&self.heaps, 0)
    }

    fn is_terminal(&self, state: &NimState) -> bool {
        state.heaps.iter().all(|&h| h == 0)
    }

    fn goal(&self, state: &NimState, role: usize) -> u8 {
        // At the end, the role to move is the one that could not take the last token.
        if role == usize::from(state.mover) {
            0
        } else {
            100
        }
    }

    fn legal_moves(&self, state: &NimState, role: usize, out: &mut Vec<NimMove>) {
        let takes = state.heaps.iter().enumerate().flat_map(|(heap, &tokens)| {
            (1..=tokens).map(move |count| Take {
                heap: heap as u8,
                count,
            })
        });
        Turn::legal(role, usize::from(state.mover), takes, out);
    }

    fn next_state(&self, state: &NimState, joint: &[NimMove]) -> NimState {
        let mut next = *state;
        if let Some(Take { heap, count }) = Turn::played(joint, usize::from(state.mover)) {
            next.heaps[usize::from(heap)] -= count;
        }
        next.mover = 1 - state.mover;
        next
    }

    fn goal_values(&self, _role: usize) -> Vec<u8> {
        vec![0, 100]
    }
}

/// Lights out on a small grid, for one player: pressing a cell toggles it and its orthogonal
/// neighbours. The game ends when every light is off (goal 100) or after `max_presses` presses
/// (goal `100 * lights off / cells`, rounded down).
#[derive(Clone, Copy, Debug)]
pub struct LightsOut {
    /// Grid width.
    pub width: u8,
    /// Grid height (width × height at most 32).
    pub height: u8,
    /// The lights on at the start, one bit per cell in row order.
    pub start: u32,
    /// The number of presses allowed.
    pub max_presses: u8,
}

/// A lights-out position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lights {
    /// The lights on, one bit per cell in row order.
    pub on: u32,
    /// Presses so far.
    pub presses: u8,
}

impl LightsOut {
    fn cells(&self) -> u32 {
        u32::from(self.width) * u32::from(self.height)
    }
}

impl GameModel for LightsOut {
    type State = Lights;
    type Move = u8;

    fn num_roles(&self) -> usize {
        1
    }

    fn initial_state(&self) -> Lights {
        Lights {
            on: self.start,
            presses: 0,
        }
    }

    fn is_terminal(&self, state: &Lights) -> bool {
        state.on == 0 || state.presses >= self.max_presses
    }

    fn goal(&self, state: &Lights, _role: usize) -> u8 {
        let off = self.cells() - state.on.count_ones();
        (100 * off / self.cells()) as u8
    }

    fn legal_moves(&self, _state: &Lights, _role: usize, out: &mut Vec<u8>) {
        out.extend(0..self.cells() as u8);
    }

    fn next_state(&self, state: &Lights, joint: &[u8]) -> Lights {
        let (w, h) = (i32::from(self.width), i32::from(self.height));
        let cell = i32::from(joint[0]);
        let (x, y) = (cell % w, cell / w);
        let mut on = state.on;
        for (dx, dy) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x + dx, y + dy);
            if (0..w).contains(&nx) && (0..h).contains(&ny) {
                on ^= 1 << (ny * w + nx);
            }
        }
        Lights {
            on,
            presses: state.presses + 1,
        }
    }

    fn goal_values(&self, _role: usize) -> Vec<u8> {
        (0..=self.cells())
            .map(|off| (100 * off / self.cells()) as u8)
            .collect()
    }
}

/// A general-sum race on a grid: the players take turns moving one token right, up, or
/// diagonally (both). The game ends when `x + y >= size`; each role's goal (0, 25, .., 100)
/// depends on the final cell through a fixed scramble. Many move orders reach the same cell.
#[derive(Clone, Copy, Debug)]
pub struct GridWalk {
    /// The distance `x + y` that ends the game.
    pub size: u8,
}

/// A grid-walk position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Walker {
    /// Column of the token.
    pub x: u8,
    /// Row of the token.
    pub y: u8,
    /// The role to move.
    pub mover: u8,
}

/// The move of the grid-walk role in control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// x + 1.
    Right,
    /// y + 1.
    Up,
    /// x + 1 and y + 1.
    Diagonal,
}

impl GameModel for GridWalk {
    type State = Walker;
    type Move = Turn<Step>;

    fn num_roles(&self) -> usize {
        2
    }

    fn initial_state(&self) -> Walker {
        Walker {
            x: 0,
            y: 0,
            mover: 0,
        }
    }

    fn is_terminal(&self, state: &Walker) -> bool {
        state.x + state.y >= self.size
    }

    fn goal(&self, state: &Walker, role: usize) -> u8 {
        let (x, y) = (u32::from(state.x), u32::from(state.y));
        let scramble = if role == 0 {
            x * 3 + y * 5 + 1
        } else {
            x * 7 + y * 2 + 3
        };
        (25 * (scramble % 5)) as u8
    }

    fn legal_moves(&self, state: &Walker, role: usize, out: &mut Vec<Turn<Step>>) {
        let steps = [Step::Right, Step::Up, Step::Diagonal];
        Turn::legal(role, usize::from(state.mover), steps, out);
    }

    fn next_state(&self, state: &Walker, joint: &[Turn<Step>]) -> Walker {
        let mut next = *state;
        match Turn::played(joint, usize::from(state.mover)) {
            Some(Step::Right) => next.x += 1,
            Some(Step::Up) => next.y += 1,
            Some(Step::Diagonal) => {
                next.x += 1;
                next.y += 1;
            }
            None => {}
        }
        next.mover = 1 - state.mover;
        next
    }

    fn goal_values(&self, _role: usize) -> Vec<u8> {
        vec![0, 25, 50, 75, 100]
    }
}
