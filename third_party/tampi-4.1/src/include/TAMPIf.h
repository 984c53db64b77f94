!
!    This file is part of Task-Aware MPI and is licensed under the terms contained in the COPYING and COPYING.LESSER files.
!
!    Copyright (C) 2015-2024 Barcelona Supercomputing Center (BSC)
!

#ifndef TAMPIF_H
#define TAMPIF_H

! TAMPI does not support Fortran yet

#endif
