! fprof_edges.f90 - arc weights and the edge rule through the Fortran module: a ring of 8
! elements over the ranks (rank r holds the ids i with mod(i, ranks) = r), arc i -> i+1 weighing
! 1 + i and i -> i-1 weighing 0 (lbsprof_mesh_weighted), the rule edge_weight =
! flag*rwgt[target] (lbsprof_meta) and rwgt = (s + 1) (i + 1) at step s, 3 steps. With a second
! argument 'stored', edge_weight = stored@step instead, and each step the same products given
! (lbsprof_edge_weights): the arcs weigh what the rule gives them.
! usage: fprof_edges TRACE [stored]   (tests/e2e/profiler_fortran.sh checks the trace)
program fprof_edges
  use mpi
  use lbsprof
  implicit none
  integer, parameter :: ne = 8
  integer :: ierr, rank, nranks, rw, s, rc
  integer(c_int64_t) :: n, k, id
  integer(c_int64_t) :: gids(ne), xadj(ne + 1), adj(2 * ne)
  real(c_double) :: coords(3 * ne), adjw(2 * ne), cw(2 * ne)
  type(c_ptr) :: p
  character(len=512) :: path, mode
  logical :: stored
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, mode)
  stored = trim(mode) == 'stored'
  rc = lbsprof_start(MPI_COMM_WORLD, trim(path), p, bound='lossless')
  rw = lbsprof_metric(p, 'rwgt', 'bodies')
  if (rc == 0 .and. stored) rc = lbsprof_meta(p, 'edge_weight', 'stored@step')
  if (rc == 0 .and. .not. stored) rc = lbsprof_meta(p, 'edge_weight', 'flag*rwgt[target]')
  ! the C arrays: 0-based ids, offsets from 0
  n = 0
  xadj(1) = 0
  do id = 0, ne - 1
    if (mod(id, int(nranks, c_int64_t)) /= rank) cycle
    n = n + 1
    gids(n) = id
    k = xadj(n)
    adj(k + 1) = mod(id + 1, int(ne, c_int64_t))
    adjw(k + 1) = real(1 + id, c_double)
    adj(k + 2) = mod(id + ne - 1, int(ne, c_int64_t))
    adjw(k + 2) = 0
    xadj(n + 1) = k + 2
    coords(3 * n - 2:3 * n) = [real(id, c_double), 0d0, 0d0]
  end do
  if (rc == 0) rc = lbsprof_mesh_weighted(p, n, gids, 3, coords, xadj, adj, adjw)
  if (rc /= 0 .or. rw < 0) then
    print *, 'lbsprof_mesh_weighted: ', trim(lbsprof_error())
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  do s = 0, 2
    do k = 0, n - 1
      call lbsprof_elem_begin(p, k)
      call lbsprof_elem_end(p, k)
      rc = lbsprof_set_value(p, rw, k, real((s + 1) * (gids(k + 1) + 1), c_double))
    end do
    if (stored) then ! flag x rwgt of the target, as the rule
      do k = 1, xadj(n + 1)
        cw(k) = adjw(k) * real((s + 1) * (adj(k) + 1), c_double)
      end do
      rc = lbsprof_edge_weights(p, xadj, cw)
      if (rc /= 0) then
        print *, 'lbsprof_edge_weights: ', trim(lbsprof_error())
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end if
    rc = lbsprof_step_end(p)
  end do
  rc = lbsprof_finalize(p)
  if (rank == 0) print '(a,i0)', 'fprof_edges done, finalize ', rc
  call MPI_Finalize(ierr)
end program fprof_edges
