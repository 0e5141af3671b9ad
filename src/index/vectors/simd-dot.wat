;; The integer dot-product kernel of simd-dot.ts, as simd-dot.ts emits it for rows of 2 groups
;; (16 int8 codes; the query is 16 int16 values). simd-dot.ts assembles these bytes itself (no
;; toolchain at runtime); test/simd-dot-listing.test.ts checks that this listing assembles to
;; exactly its bytes for 1, 2, 3 and 96 groups, the group block below repeated once per group.
;;
;; scan(row, query, rows, groups, out): for each of `rows` rows, out[r] = Σ row[r]·query (i32).
;; `groups` is unused: the module is made for one row length (its groups unrolled).
(module
  (import "env" "mem" (memory 1))
  (func $scan (export "scan")
    (param $row i32)    ;; byte offset of the current row of int8 codes
    (param $query i32)  ;; byte offset of the int16 query
    (param $rows i32)   ;; rows left
    (param $groups i32) ;; unused
    (param $out i32)    ;; byte offset of the next int32 result
    (local $sum v128)   ;; four partial sums of the row
    block $done
      local.get $rows
      i32.eqz
      br_if $done
      loop $next_row
        ;; group 0: 8 codes widened to i16, times 8 query values, pairwise added into 4 i32 lanes
        local.get $row
        v128.load8x8_s align=1
        local.get $query
        v128.load align=2
        i32x4.dot_i16x8_s
        ;; group 1 (and each further group g: code offset 8·g, query offset 16·g), added to the sum
        local.get $row
        v128.load8x8_s offset=8 align=1
        local.get $query
        v128.load offset=16 align=2
        i32x4.dot_i16x8_s
        i32x4.add
        ;; end of the groups
        local.set $sum
        ;; out[r] = the sum of the four lanes
        local.get $out
        local.get $sum
        i32x4.extract_lane 0
        local.get $sum
        i32x4.extract_lane 1
        i32.add
        local.get $sum
        i32x4.extract_lane 2
        i32.add
        local.get $sum
        i32x4.extract_lane 3
        i32.add
        i32.store
        ;; next row: 8·groups bytes on
        local.get $row
        i32.const 16
        i32.add
        local.set $row
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        local.get $rows
        i32.const 1
        i32.sub
        local.tee $rows
        br_if $next_row
      end
    end))
