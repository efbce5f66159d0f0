//! Images of a large layer taken in pieces, so that no single BDD operation runs far past a
//! time limit. The BDD engines cannot interrupt an operation, and the image of a large layer
//! under one cluster of the relation can take longer than the time a limit leaves: the run
//! then ends with "time limit reached inside one BDD operation" seconds after the limit.
//! [`ImagePace`] measures the seconds per node of the layer that images took; where one image
//! of the next layer is predicted to take more than half the time left, the layer is cut into
//! pieces on the first variables of its support ([`pieces`]): the image of the layer is the
//! union of the pieces' images, and the limits are checked between pieces
//! ([`cluster_images`], the images of a layer of a game compiled once).

use symgame_bdd::{BddEngine, BddResult, Var};
use symgame_limits::Guard;

use crate::disjunction::or_all;
use crate::game::SymbolicGame;
use crate::interrupt::Interrupt;

/// At most 2^MAX_DEPTH pieces a layer.
const MAX_DEPTH: u32 = 6;

/// The shortest time a piece is planned to take, in seconds (cutting finer costs more than
/// the limit gains).
const MIN_GRAIN: f64 = 0.1;

/// The measured pace of images: seconds per node of the set whose image was taken.
#[derive(Clone, Debug, Default)]
pub(crate) struct ImagePace {
    /// The slowest image of the last layer (seconds per node of its set).
    per_node: Option<f64>,
}

impl ImagePace {
    /// Into how many top variables of its support a set of `nodes` nodes is cut: 0 unless
    /// one image of it is predicted to take more than half the time `guard` leaves; then
    /// enough that a piece is predicted to take at most a quarter of that time (at least
    /// [`MIN_GRAIN`] seconds), at most [`MAX_DEPTH`]. 0 without a time limit or measurement.
    pub(crate) fn depth(&self, nodes: usize, guard: &Guard) -> u32 {
        let (Some(rate), Some(left)) = (self.per_node, guard.time_left()) else {
            return 0;
        };
        let predicted = rate * nodes as f64;
        let left = left.as_secs_f64();
        if predicted <= left / 2.0 {
            return 0;
        }
        let grain = (left / 4.0).max(MIN_GRAIN);
        let mut depth = 0;
        while depth < MAX_DEPTH && predicted / f64::from(1u32 << depth) > grain {
            depth += 1;
        }
        depth
    }

    /// Sets the pace to the slowest of a layer's images, `per_node` seconds per node.
    pub(crate) fn set(&mut self, per_node: f64) {
        self.per_node = Some(per_node);
    }
}

/// `s` cut on the first `depth` variables of its support: the non-empty sets `s AND c` for
/// every cube `c` over them, whose union is `s` and which are pairwise disjoint.
pub(crate) fn pieces<E: BddEngine>(e: &E, s: &E::Bdd, depth: u32) -> BddResult<Vec<E::Bdd>> {
    let mut out = vec![s.clone()];
    if depth == 0 {
        return Ok(out);
    }
    let vars: Vec<Var> = e.support(s).into_iter().take(depth as usize).collect();
    for v in vars {
        let mut next = Vec::with_capacity(2 * out.len());
        for p in &out {
            for value in [false, true] {
                let q = e.and(p, &e.literal(v, value))?;
                if !e.is_false(&q) {
                    next.push(q);
                }
            }
        }
        out = next;
    }
    Ok(out)
}

/// The successors of `expand` under each cluster (those with successors, into `images`) and
/// their union; `None` if a state of `expand` breaks an assumed group. Where `pace` predicts an
/// image past the time left, each is taken in pieces of `expand` ([`pieces`]).
pub(crate) fn cluster_images<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    (expand, pace): (&E::Bdd, &mut ImagePace),
    guard: &Guard,
    images: &mut Vec<(usize, E::Bdd)>,
) -> Result<Option<E::Bdd>, Interrupt> {
    let e = g.engine();
    let nodes = e.node_count(expand);
    let pieces: Vec<(E::Bdd, usize)> = match pace.depth(nodes, guard) {
        0 => vec![(expand.clone(), nodes)],
        depth => (pieces(e, expand, depth)?.into_iter())
            .map(|p| {
                let n = e.node_count(&p);
                (p, n)
            })
            .collect(),
    };
    let mut slowest = 0f64;
    for (c, p) in g.clusters().iter().enumerate() {
        guard.check()?;
        if p.breaks_groups(e, expand)? {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(pieces.len());
        for (piece, nodes) in &pieces {
            guard.check()?;
            let started = std::time::Instant::now();
            parts.push(p.image(e, piece)?);
            slowest = slowest.max(started.elapsed().as_secs_f64() / (*nodes).max(1) as f64);
        }
        let img = or_all(e, parts)?;
        if !e.is_false(&img) {
            images.push((c, img));
        }
    }
    pace.set(slowest);
    Ok(Some(or_all(
        e,
        images.iter().map(|(_, b)| b.clone()).collect(),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_bdd::{BiodivineEngine, EngineConfig};
    use symgame_limits::Limits;

    /// The pieces of a set are disjoint, their union is the set, and there are at most
    /// 2^depth of them.
    #[test]
    fn pieces_partition_the_set() {
        let e = BiodivineEngine::new(6, &EngineConfig::small()).unwrap();
        // x1 OR (x3 AND NOT x5): depends on x1, x3, x5.
        let s = e
            .or(&e.var(1), &e.and(&e.var(3), &e.nvar(5)).unwrap())
            .unwrap();
        for depth in 0..4 {
            let ps = pieces(&e, &s, depth).unwrap();
            assert!(ps.len() <= 1 << depth, "depth {depth}");
            let mut union = e.constant(false);
            for (i, p) in ps.iter().enumerate() {
                for q in &ps[i + 1..] {
                    assert!(e.is_false(&e.and(p, q).unwrap()), "depth {depth}");
                }
                union = e.or(&union, p).unwrap();
            }
            assert_eq!(union, s, "depth {depth}");
        }
        assert_eq!(
            pieces(&e, &s, 3).unwrap().len(),
            5,
            "x1, or not x1 with x3 and not x5"
        );
    }

    /// No cut without a time limit or a measurement, nor while an image is predicted to take
    /// at most half the time left; past that, deeper the slower the image is predicted.
    #[test]
    fn the_depth_follows_the_predicted_image_time() {
        let no_limit = Limits::default();
        let limit = Limits {
            time_limit: Some(std::time::Duration::from_secs(100)),
            ..Default::default()
        };
        let mut pace = ImagePace::default();
        assert_eq!(
            pace.depth(1_000_000, &Guard::new(&limit)),
            0,
            "nothing measured"
        );
        pace.set(1e-4);
        assert_eq!(pace.depth(1_000_000, &Guard::new(&no_limit)), 0, "no limit");
        let guard = Guard::new(&limit);
        // 10 s, 40 s, 90 s and a day predicted, with about 100 s left.
        assert_eq!(pace.depth(100_000, &guard), 0);
        assert_eq!(pace.depth(400_000, &guard), 0);
        assert_eq!(pace.depth(900_000, &guard), 2, "90 s in pieces of 22.5 s");
        assert_eq!(pace.depth(864_000_000, &guard), MAX_DEPTH);
    }
}
