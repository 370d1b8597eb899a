! fprof.f90 - the Fortran interface end to end: a 64x32 box split over the ranks, each cell
! doing work proportional to its pattern value, which it also sets as the metric 'weight'. After
! step 4 each rank reverses the order of its cells and tells lbsprof_remap (the values stay with
! the cells: the trace's are checked by element id), and adds 0.25 * (rank + 1) s to its event
! 'remap_s' there (lbsprof_event, lbsprof_event_add). Its one phase 'work' (lbsprof_phase_register,
! lbsprof_phase) holds all of the elements' time, metric time_ns.work.
! usage: fprof TRACE   (tests/e2e/profiler_fortran.sh checks the trace)
program fprof
  use mpi
  use lbsprof
  use iso_c_binding, only: c_int
  implicit none
  integer :: ierr, rank, nranks, w, ev, ph, s, rc
  integer(c_int64_t) :: g(3), lo(3), hi(3), i, x, y, n, id
  integer(c_int64_t), allocatable :: gids(:)
  type(c_ptr) :: p
  character(len=512) :: path
  real(c_double) :: acc
  interface
    ! the idle time between steps (a real code's communication phase): the node agent and the
    ! collector, which share this machine's two cores, do their work then, not inside the
    ! timed elements
    function usleep(us) bind(c, name='usleep') result(rc)
      import :: c_int
      integer(c_int), value :: us
      integer(c_int) :: rc
    end function
  end interface
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  rc = lbsprof_start(MPI_COMM_WORLD, trim(path), p, sample_every=1)
  if (rc /= 0) then
    print *, 'lbsprof_start: ', trim(lbsprof_error())
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  w = lbsprof_metric(p, 'weight', 'units')
  ev = lbsprof_event(p, 'remap_s')
  ph = lbsprof_phase_register(p, 'work')
  g = [64_c_int64_t, 32_c_int64_t, 1_c_int64_t]
  lo = [64_c_int64_t * rank / nranks, 0_c_int64_t, 0_c_int64_t]
  hi = [64_c_int64_t * (rank + 1) / nranks, 32_c_int64_t, 1_c_int64_t]
  rc = lbsprof_mesh_box(p, g, lo, hi)
  if (rc /= 0 .or. w < 0 .or. ev /= 0 .or. ph /= 0) then
    print *, 'lbsprof_mesh_box: ', trim(lbsprof_error())
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  n = (hi(1) - lo(1)) * (hi(2) - lo(2))
  allocate(gids(max(n, 1_c_int64_t)))
  i = 0
  do y = lo(2), hi(2) - 1
    do x = lo(1), hi(1) - 1
      i = i + 1
      gids(i) = x + 64 * y
    end do
  end do
  acc = 0
  do s = 0, 8
    rc = lbsprof_phase(p, ph)
    do i = 0, n - 1
      id = gids(i + 1)
      call lbsprof_elem_begin(p, i)
      acc = acc + work(1 + mod(id, 4_c_int64_t))
      call lbsprof_elem_end(p, i)
      rc = lbsprof_set_value(p, w, i, real(1 + mod(id, 4_c_int64_t), c_double))
    end do
    rc = lbsprof_step_end(p)
    if (s == 4) then
      gids(1:n) = gids(n:1:-1)
      rc = lbsprof_event_add(p, ev, 0.25_c_double * (rank + 1))
      if (rc == 0) rc = lbsprof_remap(p, n, gids)
      if (rc /= 0) then
        print *, 'lbsprof_remap: ', trim(lbsprof_error())
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    rc = usleep(20000_c_int)
  end do
  rc = lbsprof_finalize(p)
  if (rank == 0) print '(a,i0,a,l1)', 'fprof done, finalize ', rc, ' ', acc > 0
  call MPI_Finalize(ierr)
contains
  ! about 8u microseconds of busy work, timed by the wall clock (as in mpi_prof.c), so that
  ! being preempted does not change how long an element takes
  function work(u) result(r)
    integer(c_int64_t), intent(in) :: u
    real(c_double) :: r
    integer(8) :: t0, t, rate
    integer :: k
    r = 0
    call system_clock(t0, rate)
    do
      do k = 1, 50
        r = r + sqrt(real(k, c_double))
      end do
      call system_clock(t)
      if (real(t - t0, c_double) / real(rate, c_double) >= 8d-6 * real(u, c_double)) exit
    end do
  end function
end program fprof
