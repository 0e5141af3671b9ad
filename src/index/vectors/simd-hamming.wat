;; The Hamming kernel of simd-hamming.ts, as simd-hamming.ts emits it for rows of 2 groups (32
;; bytes: 256 sign bits). simd-hamming.ts assembles these bytes itself (no toolchain at runtime);
;; test/simd-hamming.test.ts checks that this listing assembles to exactly its bytes for 1, 2, 3
;; and 8 groups, the query group block and the row group block repeated once per group.
;;
;; hamming(row, query, rows, dist, hist): for each of `rows` rows, d = popcount(row XOR query);
;; dist[r] = d (uint16) and hist[d] += 1 (uint32).
(module
  (import "env" "mem" (memory 1))
  (func $hamming (export "hamming")
    (param $row i32)   ;; byte offset of the current row of sign bits
    (param $query i32) ;; byte offset of the query's sign bits
    (param $rows i32)  ;; rows left
    (param $dist i32)  ;; byte offset of the next uint16 distance
    (param $hist i32)  ;; byte offset of the histogram (uint32 per distance)
    (local $d i32)     ;; the row's distance
    (local $slot i32)  ;; address of hist[d]
    (local $acc v128)  ;; the row's bit counts
    (local $q0 v128)   ;; the query's groups
    (local $q1 v128)
    block $done
      local.get $rows
      i32.eqz
      br_if $done
      ;; query group 0
      local.get $query
      v128.load align=16
      local.set $q0
      ;; query group 1 (and each further group g: offset 16·g, local $q<g>)
      local.get $query
      v128.load offset=16 align=16
      local.set $q1
      ;; end of the query groups
      loop $next_row
        ;; row group 0: the bits that differ from the query's, counted per byte
        local.get $row
        v128.load align=16
        local.get $q0
        v128.xor
        i8x16.popcnt
        ;; row group 1 (and each further group g: offset 16·g, local $q<g>), added per byte
        local.get $row
        v128.load offset=16 align=16
        local.get $q1
        v128.xor
        i8x16.popcnt
        i8x16.add
        ;; end of the row groups
        ;; the 16 byte counts summed: pairwise into 8 × i16, then 4 × i32, then the lanes
        i16x8.extadd_pairwise_i8x16_u
        i32x4.extadd_pairwise_i16x8_u
        local.tee $acc
        i32x4.extract_lane 0
        local.get $acc
        i32x4.extract_lane 1
        i32.add
        local.get $acc
        i32x4.extract_lane 2
        i32.add
        local.get $acc
        i32x4.extract_lane 3
        i32.add
        local.set $d
        ;; dist[r] = d
        local.get $dist
        local.get $d
        i32.store16
        ;; hist[d] += 1
        local.get $hist
        local.get $d
        i32.const 2
        i32.shl
        i32.add
        local.tee $slot
        local.get $slot
        i32.load
        i32.const 1
        i32.add
        i32.store
        ;; next row: 16·groups bytes on
        local.get $row
        i32.const 32
        i32.add
        local.set $row
        local.get $dist
        i32.const 2
        i32.add
        local.set $dist
        local.get $rows
        i32.const 1
        i32.sub
        local.tee $rows
        br_if $next_row
      end
    end))
