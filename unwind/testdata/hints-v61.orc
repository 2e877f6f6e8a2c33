# objtool hint format v6.1
h_func                 sp:sp+8 bp:(und) type:call
h_func+0x3             sp:(und) bp:(und) type:undefined
h_end_of_stack         sp:(und) bp:(und) type:end_of_stack
h_end_of_stack+0x3     sp:(und) bp:(und) type:undefined
h_empty                sp:(und) bp:(und) type:end_of_stack
h_empty+0x3            sp:(und) bp:(und) type:undefined
h_entry                sp:(und) bp:(und) type:end_of_stack
h_entry+0x3            sp:(und) bp:(und) type:undefined
h_regs                 sp:sp+0 bp:(und) type:regs signal
h_regs+0x3             sp:(und) bp:(und) type:undefined
h_regs_offset          sp:sp+8 bp:(und) type:regs signal
h_regs_offset+0x3      sp:(und) bp:(und) type:undefined
h_regs_rdi             sp:di+0 bp:(und) type:regs signal
h_regs_rdi+0x3         sp:(und) bp:(und) type:undefined
h_regs_indirect        sp:sp(ind)+0 bp:(und) type:regs signal
h_regs_indirect+0x3    sp:(und) bp:(und) type:undefined
h_regs_extra0          sp:sp+128 bp:(und) type:regs_partial signal
h_regs_extra0+0x3      sp:(und) bp:(und) type:undefined
h_iret_regs            sp:sp+0 bp:(und) type:regs_partial signal
h_iret_regs+0x3        sp:(und) bp:(und) type:undefined
h_ret_offset           sp:sp+8 bp:(und) type:call
