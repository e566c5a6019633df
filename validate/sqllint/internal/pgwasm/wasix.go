package pgwasm

// The wasix_32v1 host functions libpg_query's build imports, as go-pgquery
// implements them (internal/wasix32v1; MIT License, Copyright (c)
// wasilibs authors): only stack_checkpoint and stack_restore (PostgreSQL's
// sigsetjmp and siglongjmp, by which the parser reports a syntax error)
// and proc_id are called; the module runs single-threaded.

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

const i32, i64 = api.ValueTypeI32, api.ValueTypeI64

// instantiateWasix instantiates the wasix_32v1 host module in r.
func instantiateWasix(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder("wasix_32v1")
	fn := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(f, params, results).Export(name)
	}
	never := func(name string) api.GoModuleFunc {
		return func(context.Context, api.Module, []uint64) { panic("wasix_32v1." + name + " is not implemented") }
	}
	fn("callback_signal", never("callback_signal"), []api.ValueType{i32, i32}, nil)
	fn("futex_wait", never("futex_wait"), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fn("futex_wake", never("futex_wake"), []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("futex_wake_all", never("futex_wake_all"), []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("stack_checkpoint", stackCheckpoint, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("stack_restore", stackRestore, []api.ValueType{i32, i64}, nil)
	fn("proc_id", procID, []api.ValueType{i32}, []api.ValueType{i32})
	fn("thread_exit", never("thread_exit"), []api.ValueType{i32}, nil)
	fn("thread_signal", never("thread_signal"), []api.ValueType{i32, i32}, []api.ValueType{i32})
	_, err := b.Instantiate(ctx)
	return err
}

func procID(_ context.Context, m api.Module, stack []uint64) {
	m.Memory().WriteUint32Le(uint32(stack[0]), 1)
	stack[0] = 0
}

type checkpoint struct {
	snapshot      experimental.Snapshot
	retValPtr     uint32
	cstackPointer uint32
	cstack        []byte
}

// checkpoints are one call's stack checkpoints (callContext).
type checkpoints struct{ list []checkpoint }

type checkpointsKey struct{}

// callContext is the context of one call into the module.
func callContext() context.Context {
	ctx := experimental.WithSnapshotter(context.Background())
	return context.WithValue(ctx, checkpointsKey{}, &checkpoints{})
}

func stackCheckpoint(ctx context.Context, mod api.Module, stack []uint64) {
	snapshotPtr, retValPtr := uint32(stack[0]), uint32(stack[1])
	d := ctx.Value(checkpointsKey{}).(*checkpoints)
	// The whole C stack is saved.
	sp := uint32(mod.ExportedGlobal("__stack_pointer").Get())
	top := uint32(mod.ExportedGlobal("__heap_base").Get())
	view, ok := mod.Memory().Read(sp, top-sp)
	if !ok {
		panic(errRead)
	}
	idx := len(d.list)
	d.list = append(d.list, checkpoint{
		snapshot:      experimental.GetSnapshotter(ctx).Snapshot(),
		retValPtr:     retValPtr,
		cstackPointer: sp,
		cstack:        append([]byte(nil), view...),
	})
	// struct StackSnapshot { u64 user; u128 hash; }
	if !mod.Memory().WriteUint64Le(snapshotPtr, uint64(idx)) || !mod.Memory().WriteUint64Le(retValPtr, 0) {
		panic(errWrite)
	}
	stack[0] = 0
}

func stackRestore(ctx context.Context, mod api.Module, stack []uint64) {
	snapshotPtr, ret := uint32(stack[0]), stack[1]
	idx, ok := mod.Memory().ReadUint64Le(snapshotPtr)
	if !ok {
		panic(errRead)
	}
	d := ctx.Value(checkpointsKey{}).(*checkpoints)
	c := d.list[idx]
	mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal).Set(uint64(c.cstackPointer))
	mod.Memory().Write(c.cstackPointer, c.cstack)
	mod.Memory().WriteUint64Le(c.retValPtr, ret)
	stack[0] = 0
	c.snapshot.Restore(stack[:1])
}
