;; The vector index's two scans (vector-index.ts), in WebAssembly: what V8 makes
;; of the same loops in JavaScript is several times slower, and at 1M memories
;; these scans are most of a search. Compiled at install into
;; lib/generated/vector-kernel.wasm by scripts/build-vector-kernel.mjs.
;;
;; The memory is the index's own (imported): storage pages of 4,096 slots, each
;; holding per slot `words` u32 of sign bits, `words` u32 of magnitude bits, two
;; f32 levels, an i32 memory id (-1: free), an i32 agent code, a u8 swarm flag and
;; a u16 scratch distance; plus the search's scratch (query bits, histogram,
;; tables, candidates). Every pointer below is a byte offset into that memory.
(module
  (memory (import "index" "memory") 1)

  ;; Pass 1 over one page: each slot's Hamming distance between its sign bits and
  ;; the query's, over the dimensions set in the query's $mask, into dist[], `hidden` for a slot the viewer may not see (free, or
  ;; another agent's), and a count per distance into hist[] (u32, index `hidden`
  ;; included). A slot is visible when it is live and either swarm-scope with
  ;; $wantSwarm, or agent-scope with $wantAgent and of $agentCode (-1: any agent).
  ;; Every slot costs the same (no branch on visibility: mixed pages would
  ;; mispredict). Answers how many slots were visible.
  (func (export "hamming")
    (param $bits i32) (param $ids i32) (param $agents i32) (param $swarm i32) (param $dist i32)
    (param $count i32) (param $words i32) (param $query i32) (param $mask i32)
    (param $wantAgent i32) (param $wantSwarm i32) (param $agentCode i32)
    (param $hist i32) (param $hidden i32)
    (result i32)
    (local $at i32) (local $row i32) (local $w i32) (local $d i32) (local $ok i32)
    (local $visible i32) (local $pairs i32) (local $stride i32) (local $bucket i32)
    ;; bytes a slot's sign bits take, and how many 64-bit steps they make
    local.get $words
    i32.const 2
    i32.shl
    local.set $stride
    local.get $words
    i32.const 1
    i32.shr_u
    local.set $pairs
    local.get $bits
    local.set $row
    block $done
      loop $slots
        local.get $at
        local.get $count
        i32.ge_u
        br_if $done
        ;; ok = live && (swarm ? wantSwarm : wantAgent && (agentCode == -1 || agent == agentCode))
        local.get $wantSwarm
        local.get $agentCode
        i32.const -1
        i32.eq
        local.get $agents
        local.get $at
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.get $agentCode
        i32.eq
        i32.or
        local.get $wantAgent
        i32.and
        local.get $swarm
        local.get $at
        i32.add
        i32.load8_u
        select
        local.get $ids
        local.get $at
        i32.const 2
        i32.shl
        i32.add
        i32.load
        i32.const 0
        i32.ge_s
        i32.and
        local.set $ok
        ;; d = popcount((sign bits xor query bits) and mask), 64 bits a step, then an odd last word
        i32.const 0
        local.set $d
        i32.const 0
        local.set $w
        block $wordsDone
          loop $pairLoop
            local.get $w
            local.get $pairs
            i32.ge_u
            br_if $wordsDone
            local.get $d
            local.get $row
            local.get $w
            i32.const 3
            i32.shl
            i32.add
            i64.load
            local.get $query
            local.get $w
            i32.const 3
            i32.shl
            i32.add
            i64.load
            i64.xor
            local.get $mask
            local.get $w
            i32.const 3
            i32.shl
            i32.add
            i64.load
            i64.and
            i64.popcnt
            i32.wrap_i64
            i32.add
            local.set $d
            local.get $w
            i32.const 1
            i32.add
            local.set $w
            br $pairLoop
          end
        end
        local.get $words
        i32.const 1
        i32.and
        if
          local.get $d
          local.get $row
          local.get $pairs
          i32.const 3
          i32.shl
          i32.add
          i32.load
          local.get $query
          local.get $pairs
          i32.const 3
          i32.shl
          i32.add
          i32.load
          i32.xor
          local.get $mask
          local.get $pairs
          i32.const 3
          i32.shl
          i32.add
          i32.load
          i32.and
          i32.popcnt
          i32.add
          local.set $d
        end
        ;; dist[at] = ok ? d : hidden; hist[that]++; visible += ok
        local.get $d
        local.get $hidden
        local.get $ok
        select
        local.set $d
        local.get $dist
        local.get $at
        i32.const 1
        i32.shl
        i32.add
        local.get $d
        i32.store16
        local.get $hist
        local.get $d
        i32.const 2
        i32.shl
        i32.add
        local.tee $bucket
        local.get $bucket
        i32.load
        i32.const 1
        i32.add
        i32.store
        local.get $visible
        local.get $ok
        i32.add
        local.set $visible
        local.get $row
        local.get $stride
        i32.add
        local.set $row
        local.get $at
        i32.const 1
        i32.add
        local.set $at
        br $slots
      end
    end
    local.get $visible)

  ;; Pass 2 over one page: for each slot with dist <= $cutoff, its estimated dot
  ;; product with the query from two bits a dimension. $tables holds, per chunk of
  ;; 4 dimensions, 256 pairs of f32 (2 KiB a chunk): for the chunk's 4 sign bits
  ;; (low nibble of the key) and 4 magnitude bits (high nibble), the signed sum of
  ;; the query over its small numbers and over its large ones. The slot's two
  ;; levels scale the two sums. Writes the memory id to outIds[n] (i32) and the
  ;; estimate to outScores[n] (f32), from $n while n < $cap; answers the new n.
  (func (export "estimate")
    (param $bits i32) (param $mags i32) (param $lows i32) (param $highs i32) (param $ids i32) (param $dist i32)
    (param $count i32) (param $words i32) (param $cutoff i32) (param $tables i32)
    (param $outIds i32) (param $outScores i32) (param $n i32) (param $cap i32)
    (result i32)
    (local $at i32) (local $row i32) (local $end i32) (local $sb i32) (local $mb i32) (local $t i32)
    (local $nibble i32) (local $key i32) (local $small f64) (local $large f64) (local $stride i32)
    local.get $words
    i32.const 2
    i32.shl
    local.set $stride
    block $done
      loop $slots
        local.get $at
        local.get $count
        i32.ge_u
        br_if $done
        local.get $n
        local.get $cap
        i32.ge_u
        br_if $done
        local.get $dist
        local.get $at
        i32.const 1
        i32.shl
        i32.add
        i32.load16_u
        local.get $cutoff
        i32.le_u
        if
          f64.const 0
          local.set $small
          f64.const 0
          local.set $large
          local.get $tables
          local.set $t
          ;; row: this slot's first word, as a byte offset from either bit array
          local.get $at
          local.get $stride
          i32.mul
          local.tee $row
          local.get $stride
          i32.add
          local.set $end
          block $wordsDone
            loop $wordLoop
              local.get $row
              local.get $end
              i32.ge_u
              br_if $wordsDone
              local.get $bits
              local.get $row
              i32.add
              i32.load
              local.set $sb
              local.get $mags
              local.get $row
              i32.add
              i32.load
              local.set $mb
              i32.const 0
              local.set $nibble
              loop $nibbleLoop
                ;; key = (sb & 15) | (mb & 15) << 4, a pair of f32 at t + key * 8
                local.get $t
                local.get $sb
                i32.const 15
                i32.and
                local.get $mb
                i32.const 15
                i32.and
                i32.const 4
                i32.shl
                i32.or
                i32.const 3
                i32.shl
                i32.add
                local.tee $key
                f32.load
                f64.promote_f32
                local.get $small
                f64.add
                local.set $small
                local.get $key
                f32.load offset=4
                f64.promote_f32
                local.get $large
                f64.add
                local.set $large
                local.get $sb
                i32.const 4
                i32.shr_u
                local.set $sb
                local.get $mb
                i32.const 4
                i32.shr_u
                local.set $mb
                local.get $t
                i32.const 2048
                i32.add
                local.set $t
                local.get $nibble
                i32.const 1
                i32.add
                local.tee $nibble
                i32.const 8
                i32.lt_u
                br_if $nibbleLoop
              end
              local.get $row
              i32.const 4
              i32.add
              local.set $row
              br $wordLoop
            end
          end
          ;; outIds[n] = ids[at]; outScores[n] = small * lows[at] + large * highs[at]; n++
          local.get $outIds
          local.get $n
          i32.const 2
          i32.shl
          i32.add
          local.get $ids
          local.get $at
          i32.const 2
          i32.shl
          i32.add
          i32.load
          i32.store
          local.get $outScores
          local.get $n
          i32.const 2
          i32.shl
          i32.add
          local.get $small
          local.get $lows
          local.get $at
          i32.const 2
          i32.shl
          i32.add
          f32.load
          f64.promote_f32
          f64.mul
          local.get $large
          local.get $highs
          local.get $at
          i32.const 2
          i32.shl
          i32.add
          f32.load
          f64.promote_f32
          f64.mul
          f64.add
          f32.demote_f64
          f32.store
          local.get $n
          i32.const 1
          i32.add
          local.set $n
        end
        local.get $at
        i32.const 1
        i32.add
        local.set $at
        br $slots
      end
    end
    local.get $n)
)
