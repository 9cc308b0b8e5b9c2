export default function Page() {
  return (
    <main>
      <h1>Welcome</h1>
      <p>TODO: add system status and dashboard link.</p>
    </main>
  );
}
